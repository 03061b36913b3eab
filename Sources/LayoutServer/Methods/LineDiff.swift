import LayoutEngine

/// Lines that differ between two layouts of a text before and after an edit: the first that
/// changed, how many of the old went and how many new came. The lines after them are the old
/// ones moved (by the text's length change and by a common vertical shift).
struct LineDiff: Equatable {
    let first: Int
    let removed: Int
    let added: Int

    init(first: Int, removed: Int, added: Int) {
        self.first = first
        self.removed = removed
        self.added = added
    }

    /// `knownSame`: leading lines the engine took over unchanged (not compared again).
    init(_ old: [LineBox], _ new: [LineBox], textDelta: Int, knownSame: Int = 0) {
        var first = min(knownSame, old.count, new.count)
        while first < old.count, first < new.count, Self.same(old[first], new[first], offsetDelta: 0, dy: 0) { first += 1 }
        var tail = 0
        if let lastOld = old.last, let lastNew = new.last {
            let dy = lastNew.y - lastOld.y
            while tail < old.count - first, tail < new.count - first,
                  Self.same(old[old.count - 1 - tail], new[new.count - 1 - tail], offsetDelta: textDelta, dy: dy) {
                tail += 1
            }
        }
        self.first = first
        self.removed = old.count - first - tail
        self.added = new.count - first - tail
    }

    private static func same(_ a: LineBox, _ b: LineBox, offsetDelta: Int, dy: Double) -> Bool {
        a.start + offsetDelta == b.start && a.end + offsetDelta == b.end && a.x == b.x && abs(a.y + dy - b.y) < 1e-9
            && a.width == b.width && a.height == b.height && a.hyphenated == b.hyphenated && a.showsToken == b.showsToken
    }
}
