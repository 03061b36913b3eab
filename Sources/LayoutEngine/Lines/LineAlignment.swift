/// The lines as placed in their slots: their boxes, the widest line with the room its slot
/// leaves (the used width), the truncation token's rect, which kept lines moved, and which
/// boxes are still to take their runs from the assembled lines.
struct PlacedLines {
    var boxes: [LineBox] = []
    var usedWidth = 0.0
    var tokenRect: Rect?
    var moved: [Bool]
    var runsToMove: [Int] = []
}

extension LayoutPass {
    /// Final x of every line: aligned in its slot (unbounded slots align against the widest
    /// of them), its runs moved with it. Kept paragraphs take their lines as placed here (see
    /// `storePlacedLines`).
    mutating func alignLines() -> PlacedLines {
        let keepsLines = !reusable.isEmpty
        var placed = PlacedLines(moved: [Bool](repeating: false, count: keepsLines ? lines.count : 0))
        placed.boxes.reserveCapacity(lines.count)
        let room = reserved, wantsRuns = self.wantsRuns, truncated = self.truncated
        // Through the buffer, fields are read in place: copying a whole line costs a retain.
        lines.withUnsafeMutableBufferPointer { lines in
            var unboundedWidth = 0.0
            for i in lines.indices where lines[i].slot.width == nil {
                unboundedWidth = max(unboundedWidth, lines[i].box.width)
            }
            for i in lines.indices {
                let slot = lines[i].slot
                let x = slot.x + Self.alignmentOffset(lines[i], available: slot.width ?? unboundedWidth)
                placed.usedWidth = max(placed.usedWidth, lines[i].box.width + room[i])
                if x == lines[i].placedX, x == lines[i].box.x, wantsRuns, !truncated {
                    // Already where it goes (a paragraph taken over from the previous layout, or
                    // a line at x 0 as assembled): its runs are moved over, not copied, once
                    // nothing else reads them (`finish`): a copy would retain each line's runs
                    // here and release them again when `lines` goes.
                    placed.boxes.append(Self.boxWithoutRuns(lines.baseAddress! + i))
                    placed.runsToMove.append(i)
                    continue
                }
                var box = lines[i].box
                box.x = x
                let dx = box.x - lines[i].placedX
                if dx != 0, !box.runs.isEmpty {
                    box.runs.withUnsafeMutableBufferPointer { runs in
                        for r in runs.indices { runs[r].x += dx }
                    }
                }
                // The truncation token's rect (its runs are found before `runs` may be dropped).
                if box.runs.contains(where: \.isToken) {
                    let tokenRuns = box.runs.filter(\.isToken)
                    placed.tokenRect = Rect(x: tokenRuns.map(\.x).min() ?? box.x, y: box.y,
                                            width: tokenRuns.reduce(0) { $0 + $1.width }, height: box.height)
                }
                if keepsLines, dx != 0 {
                    placed.moved[i] = true
                    lines[i].box = box
                    lines[i].placedX = box.x
                }
                if !wantsRuns { box.runs = [] }
                placed.boxes.append(box)
            }
        }
        return placed
    }

    /// How far right of its slot's start a line sits for its placement.
    @inline(__always)
    static func alignmentOffset(_ line: AssembledLine, available: Double) -> Double {
        switch line.placement {
        case .left: 0
        case .right: available - line.box.width
        case .center: (available - line.box.width) / 2
        }
    }

    /// A copy of a line's box without its runs, field by field: a copy of the box would
    /// retain its runs.
    @inline(__always)
    static func boxWithoutRuns(_ line: UnsafeMutablePointer<AssembledLine>) -> LineBox {
        LineBox(start: line.pointee.box.start, end: line.pointee.box.end, x: line.pointee.box.x,
                y: line.pointee.box.y, width: line.pointee.box.width, height: line.pointee.box.height,
                baseline: line.pointee.box.baseline, ascent: line.pointee.box.ascent,
                descent: line.pointee.box.descent, isRTL: line.pointee.box.isRTL,
                hyphenated: line.pointee.box.hyphenated, showsToken: line.pointee.box.showsToken,
                endsParagraph: line.pointee.box.endsParagraph, runs: [])
    }
}
