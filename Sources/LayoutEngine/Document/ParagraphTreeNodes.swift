/// One node of a `ParagraphTree`: its paragraph, its subtree's size and summary, its
/// children and its priority. Immutable: an edit makes new nodes along the paths it
/// changes. Recursion depth is the tree's height, O(log n) expected.
final class TreapNode: Sendable {
    let item: any Sendable
    let own: TextSummary
    let total: TextSummary
    let size: Int
    let left: TreapNode?
    let right: TreapNode?
    let priority: UInt64

    init(item: any Sendable, own: TextSummary, left: TreapNode?, right: TreapNode?, priority: UInt64) {
        self.item = item
        self.own = own
        self.left = left
        self.right = right
        self.priority = priority
        size = TreapNode.size(left) + 1 + TreapNode.size(right)
        var total = left?.total ?? .zero
        total = total + own
        if let right { total = total + right.total }
        self.total = total
    }

    /// This node with other children.
    func with(left: TreapNode?, right: TreapNode?) -> TreapNode {
        TreapNode(item: item, own: own, left: left, right: right, priority: priority)
    }

    static func size(_ t: TreapNode?) -> Int { t?.size ?? 0 }

    /// `t` cut into its first `k` paragraphs and the rest.
    static func split(_ t: TreapNode?, _ k: Int) -> (TreapNode?, TreapNode?) {
        guard let t else { return (nil, nil) }
        let leftSize = size(t.left)
        if k <= leftSize {
            if k == 0 { return (nil, t) }
            let (a, b) = split(t.left, k)
            return (a, t.with(left: b, right: t.right))
        }
        if k >= t.size { return (t, nil) }
        let (a, b) = split(t.right, k - leftSize - 1)
        return (t.with(left: t.left, right: a), b)
    }

    /// `a` followed by `b`.
    static func merge(_ a: TreapNode?, _ b: TreapNode?) -> TreapNode? {
        guard let a else { return b }
        guard let b else { return a }
        if a.priority > b.priority { return a.with(left: a.left, right: merge(a.right, b)) }
        return b.with(left: merge(a, b.left), right: b.right)
    }

    /// The treap of `count` items in order (`item(i)`), each with the next of `priorities`:
    /// the Cartesian tree of their priorities, made in one pass with a stack of the right
    /// spine (each item is pushed and popped once). `shouldStop` is asked every 1024 items.
    static func build(_ count: Int, priorities: inout TreapPriorities, shouldStop: (@Sendable () -> EngineError?)?,
                      item: (Int) -> (any Sendable, TextSummary)) throws(EngineError) -> TreapNode? {
        // The spine as (item, summary, priority, left subtree), built bottom-up once final.
        var spine: [(item: any Sendable, own: TextSummary, priority: UInt64, left: TreapNode?)] = []
        func close(above index: Int, keeping last: TreapNode?) -> TreapNode? {
            var right = last
            while spine.count > index {
                let s = spine.removeLast()
                right = TreapNode(item: s.item, own: s.own, left: s.left, right: right, priority: s.priority)
            }
            return right
        }
        for i in 0..<count {
            if i & 1023 == 1023, let stop = shouldStop?() { throw stop }
            let (value, summary) = item(i)
            let priority = priorities.next()
            // Pops every spine entry of lower priority: they become this one's left subtree.
            var cut = spine.count
            while cut > 0, spine[cut - 1].priority < priority { cut -= 1 }
            let left = close(above: cut, keeping: nil)
            spine.append((value, summary, priority, left))
        }
        return close(above: 0, keeping: nil)
    }

    /// The node of the paragraph at `index` in this subtree; nil outside it.
    func node(at index: Int) -> TreapNode? {
        var t: TreapNode? = self, i = index
        while let n = t {
            let ls = TreapNode.size(n.left)
            if i < ls { t = n.left } else if i == ls { return n } else { i -= ls + 1; t = n.right }
        }
        return nil
    }

    /// The summary of the paragraphs before `index` (0 ... size).
    func start(of index: Int) -> TextSummary {
        var t: TreapNode? = self, i = index, sum = TextSummary.zero
        while let n = t {
            let ls = TreapNode.size(n.left)
            if i <= ls { t = n.left } else {
                if let left = n.left { sum = sum + left.total }
                sum = sum + n.own
                i -= ls + 1
                t = n.right
            }
        }
        return sum
    }
}

/// splitmix64: the treap's priorities, the same on every run for the same edits.
struct TreapPriorities {
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15

    init(seed: UInt64 = 0x9E37_79B9_7F4A_7C15) { self.seed = seed }

    mutating func next() -> UInt64 {
        seed &+= 0x9E37_79B9_7F4A_7C15
        var z = seed
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
