/// A document's paragraphs in order, each with its `TextSummary`, kept in a treap (a binary
/// search tree balanced by random priorities, Seidel and Aragon 1996) whose every node also
/// holds the summary of its subtree. Replacing a run of paragraphs, the start of any
/// paragraph in every offset encoding and in y, and finding the paragraph at an offset or
/// a y cost O(log n) expected: nothing walks the paragraphs after an edit, and their offsets
/// and y are sums computed on the way down, never stored.
public struct ParagraphTree<Item: Sendable>: Sendable {
    struct Node: Sendable {
        var item: Item
        var own: TextSummary
        var total: TextSummary
        var size: Int
        var left: Int32
        var right: Int32
        var priority: UInt64
    }

    var nodes: [Node] = []
    var free: [Int32] = []
    var root: Int32 = -1
    /// splitmix64 state: the same priorities, so the same shape, on every run.
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15

    public init() {}

    /// A tree of `items` in order. `shouldStop` is asked every 1024 paragraphs (the request's
    /// deadline and cancel flag), and its error thrown.
    public init(_ items: [(item: Item, summary: TextSummary)],
                shouldStop: (@Sendable () -> EngineError?)? = nil) throws(EngineError) {
        nodes.reserveCapacity(items.count)
        for (i, entry) in items.enumerated() {
            if i & 1023 == 1023, let stop = shouldStop?() { throw stop }
            root = merge(root, make(entry.item, entry.summary))
        }
    }

    /// How many paragraphs the tree holds.
    public var count: Int { size(root) }
    /// The whole document's summary.
    public var summary: TextSummary { total(root) }

    /// The paragraph at `index`; nil outside 0 ..< count.
    public func item(at index: Int) -> Item? {
        var t = root, i = index
        while t >= 0 {
            let l = nodes[Int(t)].left, ls = size(l)
            if i < ls { t = l } else if i == ls { return nodes[Int(t)].item } else { i -= ls + 1; t = nodes[Int(t)].right }
        }
        return nil
    }

    /// The summary of the paragraphs before `index` (0 ... count): the paragraph's start in
    /// every encoding and its top.
    public func start(of index: Int) -> TextSummary {
        var t = root, i = index, sum = TextSummary.zero
        while t >= 0 {
            let node = nodes[Int(t)], ls = size(node.left)
            if i <= ls { t = node.left } else {
                sum = sum + total(node.left) + node.own
                i -= ls + 1
                t = node.right
            }
        }
        return sum
    }

    /// Replaces the paragraphs at `range` with `items`: O((k + m) log n) expected for k
    /// paragraphs removed and m inserted.
    public mutating func replace(_ range: Range<Int>, with items: [(item: Item, summary: TextSummary)]) {
        let (before, rest) = split(root, range.lowerBound)
        let (removed, after) = split(rest, range.count)
        release(removed)
        var middle: Int32 = -1
        for entry in items { middle = merge(middle, make(entry.item, entry.summary)) }
        root = merge(merge(before, middle), after)
    }
}
