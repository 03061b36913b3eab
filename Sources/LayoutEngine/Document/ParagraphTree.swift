/// A document's paragraphs in order, each with its `TextSummary`, kept in a treap (a binary
/// search tree balanced by random priorities, Seidel and Aragon 1996) whose every node also
/// holds the summary of its subtree. Replacing a run of paragraphs, the start of any
/// paragraph in every offset encoding and in y, and finding the paragraph at an offset or
/// a y cost O(log n) expected: nothing walks the paragraphs after an edit, and their offsets
/// and y are sums computed on the way down, never stored.
///
/// Persistent: nodes are immutable and shared, and an edit makes new nodes only along the
/// paths it changes, so a document edited into a new one shares all the rest with it (an
/// array of nodes edited in place would be copied whole). The nodes are not generic (their
/// item is an existential, cast back on the way out), so their operations are compiled once,
/// specialized, whatever the items are.
public struct ParagraphTree<Item: Sendable>: Sendable {
    var root: TreapNode?

    public init() {}

    /// A tree of `items` in order, built in linear time. `shouldStop` is asked every 1024
    /// paragraphs (the request's deadline and cancel flag), and its error thrown.
    public init(_ items: [(item: Item, summary: TextSummary)],
                shouldStop: (@Sendable () -> EngineError?)? = nil) throws(EngineError) {
        var priorities = TreapPriorities()
        root = try TreapNode.build(items.count, priorities: &priorities, shouldStop: shouldStop) {
            (items[$0].item, items[$0].summary)
        }
    }

    /// How many paragraphs the tree holds.
    public var count: Int { TreapNode.size(root) }
    /// The whole document's summary.
    public var summary: TextSummary { root?.total ?? .zero }

    /// The paragraph at `index`; nil outside 0 ..< count.
    public func item(at index: Int) -> Item? {
        root?.node(at: index).map { $0.item as! Item }
    }

    /// The summary of the paragraphs before `index` (0 ... count): the paragraph's start in
    /// every encoding and its top.
    public func start(of index: Int) -> TextSummary { root?.start(of: index) ?? .zero }

    /// Replaces the paragraphs at `range` with `items`: O((k + m) log n) expected for k
    /// paragraphs removed and m inserted.
    public mutating func replace(_ range: Range<Int>, with items: [(item: Item, summary: TextSummary)]) {
        let (before, rest) = TreapNode.split(root, range.lowerBound)
        let (_, after) = TreapNode.split(rest, range.count)
        var priorities = TreapPriorities(seed: root.map { $0.priority ^ UInt64(truncatingIfNeeded: $0.size) } ?? 0)
        let middle = try? TreapNode.build(items.count, priorities: &priorities, shouldStop: nil) {
            (items[$0].item, items[$0].summary)
        }
        root = TreapNode.merge(TreapNode.merge(before, middle ?? nil), after)
    }
}
