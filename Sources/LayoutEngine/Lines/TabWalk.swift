/// Where an earlier width measurement of a line left off among its tabs, so that the next
/// measurement of the same line (same start and tab origin, a later end) starts from there.
/// A line filler measures a line at each break opportunity in turn; without this a line of
/// n tabs costs n² tab placements. Only tabs whose following segment ends at another tab are
/// recorded: their advance does not depend on where the line ends (a right, centre or decimal
/// stop aligns the text up to the next tab).
final class TabWalk {
    private var start = -1
    private var origin = 0.0
    /// The index (into the paragraph's tabs) of the next tab to place, the width up to it
    /// (without the text since `position`), and the offset after the last tab placed.
    private var tab = 0
    private var x = 0.0
    private var position = 0

    /// The state to go on from for a line `start`… whose visible part ends at `visibleEnd`,
    /// or nil when nothing recorded applies (another line, or a shorter end).
    func resume(start s: Int, origin o: Double, tabs: [Int], before visibleEnd: Int) -> (tab: Int, x: Double, position: Int)? {
        guard s == start, o == origin, tab < tabs.count, tabs[tab] < visibleEnd else { return nil }
        return (tab, x, position)
    }

    func record(start s: Int, origin o: Double, tab t: Int, x width: Double, position p: Int) {
        start = s
        origin = o
        tab = t
        x = width
        position = p
    }
}
