/// The treap's own operations on its node pool: making and freeing nodes, keeping each
/// subtree's size and summary, and the split and merge every edit is made of. Recursion
/// depth is the tree's height, O(log n) expected.
extension ParagraphTree {
    func size(_ t: Int32) -> Int { t < 0 ? 0 : nodes[Int(t)].size }
    func total(_ t: Int32) -> TextSummary { t < 0 ? .zero : nodes[Int(t)].total }

    mutating func nextPriority() -> UInt64 {
        seed &+= 0x9E37_79B9_7F4A_7C15
        var z = seed
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func make(_ item: Item, _ summary: TextSummary) -> Int32 {
        let node = Node(item: item, own: summary, total: summary, size: 1, left: -1, right: -1, priority: nextPriority())
        if let slot = free.popLast() {
            nodes[Int(slot)] = node
            return slot
        }
        nodes.append(node)
        return Int32(nodes.count - 1)
    }

    /// Frees the nodes of subtree `t` for reuse (their items stay until overwritten).
    mutating func release(_ t: Int32) {
        var pending: [Int32] = t >= 0 ? [t] : []
        while let n = pending.popLast() {
            let node = nodes[Int(n)]
            if node.left >= 0 { pending.append(node.left) }
            if node.right >= 0 { pending.append(node.right) }
            free.append(n)
        }
    }

    mutating func pull(_ t: Int32) {
        let node = nodes[Int(t)]
        nodes[Int(t)].size = size(node.left) + 1 + size(node.right)
        nodes[Int(t)].total = total(node.left) + node.own + total(node.right)
    }

    /// `t` cut into its first `k` paragraphs and the rest.
    mutating func split(_ t: Int32, _ k: Int) -> (Int32, Int32) {
        guard t >= 0 else { return (-1, -1) }
        let leftSize = size(nodes[Int(t)].left)
        if k <= leftSize {
            let (a, b) = split(nodes[Int(t)].left, k)
            nodes[Int(t)].left = b
            pull(t)
            return (a, t)
        }
        let (a, b) = split(nodes[Int(t)].right, k - leftSize - 1)
        nodes[Int(t)].right = a
        pull(t)
        return (t, b)
    }

    /// `a` followed by `b`.
    mutating func merge(_ a: Int32, _ b: Int32) -> Int32 {
        guard a >= 0 else { return b }
        guard b >= 0 else { return a }
        if nodes[Int(a)].priority > nodes[Int(b)].priority {
            nodes[Int(a)].right = merge(nodes[Int(a)].right, b)
            pull(a)
            return a
        }
        nodes[Int(b)].left = merge(a, nodes[Int(b)].left)
        pull(b)
        return b
    }
}
