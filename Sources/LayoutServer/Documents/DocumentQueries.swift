import LayoutEngine
import LayoutProtocol

/// The queries that cross pieces: a range's rectangles, lines and text, and the whole text
/// with its spans. Each visits the pieces the range touches, not the others.
extension RetainedDocument {
    /// The pieces `start..<end` (document UTF-16) touches, each with the range's part in it
    /// (piece UTF-16 offsets).
    private func parts(_ start: Int, _ end: Int, _ body: (PieceAt, Int, Int) throws(RPCError) -> Void) throws(RPCError) {
        guard end > start else { return }
        try forEachPiece(from: start, to: end) { (at) throws(RPCError) in
            let count = at.piece.text.count
            try body(at, max(0, start - at.start.utf16), min(count, end - at.start.utf16))
        }
    }

    /// How many lines `start..<end` touches.
    func lineCount(_ start: Int, _ end: Int) -> Int {
        var count = 0
        try? parts(start, end) { at, s, e in count += at.piece.layout.lineCount(s, e) }
        return count
    }

    /// The rectangles covering `start..<end`, in the document's coordinates; `stop` is
    /// asked before each piece, and `full` gives each piece's layout with its runs.
    func rects(_ start: Int, _ end: Int, stop: (@Sendable () -> EngineError?)? = nil,
               full: (PieceAt) throws(RPCError) -> PieceAt) throws(RPCError) -> [Rect] {
        var rects: [Rect] = []
        try parts(start, end) { (found, s, e) throws(RPCError) in
            if let stopped = stop?() { throw LayoutService.rpcError(stopped) }
            let at = try full(found), dy = at.top
            rects += at.piece.layout.rects(s, e).map { Rect(x: $0.x, y: $0.y + dy, width: $0.width, height: $0.height) }
        }
        return rects
    }

    /// The text of `start..<end`.
    func text(_ start: Int, _ end: Int) -> [UInt16] {
        var units: [UInt16] = []
        units.reserveCapacity(max(0, end - start))
        try? parts(start, end) { at, s, e in units += at.piece.text[s..<e] }
        return units
    }

    /// The whole text and every client span (UTF-16), as one layout of it would take them.
    func joined(stop: (@Sendable () -> EngineError?)?) throws(RPCError) -> (text: [UInt16], spans: [TextSpan]) {
        var text: [UInt16] = [], spans: [TextSpan] = []
        text.reserveCapacity(utf16Length)
        for i in 0..<pieceCount {
            if i & 63 == 63, let stopped = stop?() { throw LayoutService.rpcError(stopped) }
            let piece = tree.item(at: i)!, base = text.count
            text += piece.text
            spans += piece.built.spans.map { (base + $0.start, base + $0.end, $0.attributes) }
        }
        return (text, spans)
    }

    /// The document as one layout of its whole text (the one piece of a whole document; a
    /// pieced one laid out again whole), for what reads every line at once: a picture.
    func whole(_ service: LayoutService, session: Session) throws(RPCError) -> RetainedLayout {
        guard isPieced else { return first }
        let (text, spans) = try joined(stop: service.stopCheck(session))
        return try service.perform(params, session: session, keeping: .everything, utf16Spans: spans, utf16Text: text)
    }
}
