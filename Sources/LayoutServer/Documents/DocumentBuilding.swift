import LayoutEngine
import LayoutProtocol

/// What the pieces laid out for one request add up to.
struct PieceTally {
    var bytes = 256
    var shapingBytes = 0
    var reused = 0
    var reshaped = 0
    var warnings: [String] = []

    mutating func add(_ piece: RetainedLayout) {
        bytes += piece.bytes
        shapingBytes += piece.shapingBytes
        reused += piece.layout.reusedParagraphs
        reshaped += piece.layout.reshapedParagraphs
        for warning in piece.built.warnings where !warnings.contains(warning) { warnings.append(warning) }
    }
}

extension RetainedDocument {
    /// Whether params allow a document cut into pieces: its lines must not depend on text
    /// outside their paragraph.
    static func mayBePieced(_ p: LayoutParams) -> Bool {
        p.width != nil && p.exclusions.isEmpty && (p.paragraph.maxLines ?? 0) <= 0 && p.decorations == nil
    }

    /// The params each piece is laid out with: the document's, without the text, the top
    /// and bottom insets (the document's, above its first piece and below its last).
    static func pieceParams(_ p: LayoutParams) -> LayoutParams {
        var q = p
        q.text = ""
        q.spans = []
        q.viewport = nil
        q.insets.top = 0
        q.insets.bottom = 0
        return q
    }
}

extension LayoutService {
    /// Params with `retain` → the document to keep: in pieces when they allow it and the text
    /// is long enough, else laid out whole.
    func retainDocument(_ p: LayoutParams, session: Session) throws(RPCError) -> RetainedDocument {
        let text = try requestText(units: p.textUnits, text: p.text, retained: true)
        guard RetainedDocument.mayBePieced(p), text.count >= DocumentCuts.piecedLength else {
            return RetainedDocument(whole: try perform(p, session: session, keeping: .everything, utf16Text: text))
        }
        let mapping = OffsetMapping(text: text, encoding: session.offsetEncoding.engineEncoding)
        let spans = try utf16Spans(p, mapping: mapping, session: session)
        return try piecedDocument(p, text: text, spans: spans, previous: nil, session: session)
    }

    /// `text` with `spans` (UTF-16) cut into pieces and each laid out. `previous` is a layout
    /// of the same text: a piece takes over what it can of the old piece with its range, or
    /// of the old paragraphs that start in its range.
    func piecedDocument(_ p: LayoutParams, text: [UInt16], spans: [TextSpan], previous: RetainedDocument?,
                        session: Session) throws(RPCError) -> RetainedDocument {
        var oldPieces: [Int: (index: Int, length: Int)] = [:]
        if let previous, previous.isPieced {
            try previous.forEachPiece(from: 0, to: previous.utf16Length) { at in
                oldPieces[at.start.utf16] = (at.index, at.piece.text.count)
            }
        }
        var oldShaping: ReusableLayout??
        func reusable(_ range: Range<Int>) -> ReusableLayout? {
            guard let previous else { return nil }
            if let old = oldPieces[range.lowerBound], old.length == range.count {
                return previous.tree.item(at: old.index)?.layout.reusable
            }
            if oldShaping == nil { oldShaping = .some(previous.reusableWhole()) }
            return oldShaping??.slice(range)
        }
        let ranges = DocumentCuts.ranges(text, spans: spans)
        let pieceSpans = DocumentCuts.split(spans, at: ranges)
        let params = RetainedDocument.pieceParams(p), gap = RetainedDocument.gap(p)
        var items: [(item: RetainedLayout, summary: TextSummary)] = []
        items.reserveCapacity(ranges.count)
        var tally = PieceTally()
        let fontCarry = FontSelectionCarry()
        for (i, range) in ranges.enumerated() {
            let piece = try perform(params, session: session, keeping: .reusable, utf16Spans: pieceSpans[i],
                                    utf16Text: Array(text[range]), previous: reusable(range), continues: i < ranges.count - 1,
                                    fontCarry: fontCarry)
            tally.add(piece)
            items.append((piece, RetainedDocument.summary(of: piece, first: i == 0, gap: gap)))
        }
        let tree: ParagraphTree<RetainedLayout>
        do { tree = try ParagraphTree(items, shouldStop: stopCheck(session)) } catch { throw Self.rpcError(error) }
        return RetainedDocument(tree: tree, params: p, detail: items[0].item.detail, isPieced: true,
                                fontFingerprint: engine.fonts.fingerprint, bytes: tally.bytes,
                                shapingBytes: tally.shapingBytes, reused: tally.reused, reshaped: tally.reshaped,
                                warnings: tally.warnings)
    }
}
