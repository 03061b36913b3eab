import LayoutEngine
import LayoutProtocol
import Synchronization

/// A retained document: its text in pieces of whole paragraphs, each a `RetainedLayout` of
/// its own text, kept in a `ParagraphTree` whose summaries give every piece's start in each
/// offset encoding, its first line and its top. An edit lays out again only the pieces it
/// touches; finding a piece by offset, line or y walks one path of the tree.
///
/// A document whose lines depend on the whole text (no width to wrap at: alignment follows
/// the widest line; exclusions; a line limit; per-line decorations) is one piece, laid out
/// whole, as is a short one. Immutable once made; shared between threads.
final class RetainedDocument: Sendable {
    let tree: ParagraphTree<RetainedLayout>
    /// The document's params; its text and spans are the pieces'.
    let params: LayoutParams
    let detail: LayoutDetail
    /// Whether the document is cut into pieces, laid out without the top and bottom insets
    /// (else its one piece is laid out with them, as a whole).
    let isPieced: Bool
    /// The space between the last line of a piece and the first of the next: the spacing
    /// after a paragraph, before one, and between lines. Counted in each piece's summary
    /// but the first, so that y in it finds the piece below, as a point between two
    /// paragraphs finds the line below.
    let gap: Double
    let fontFingerprint: String
    /// Estimated memory held (the store's byte bound), and the part kept shaping holds.
    let bytes: Int
    let shapingBytes: Int
    /// What its compact pieces' full layouts added to `bytes` since it was made, counted
    /// by the store that holds it (`LayoutStore.grew`).
    let grownBytes = Atomic<Int>(0)
    var currentBytes: Int { bytes + grownBytes.load(ordering: .relaxed) }
    /// Of the layout that made this document: paragraphs taken over, paragraphs shaped.
    let reusedParagraphs: Int
    let reshapedParagraphs: Int
    /// What went wrong in plugins while its pieces were laid out, for `warnings`.
    let warnings: [String]

    init(tree: ParagraphTree<RetainedLayout>, params: LayoutParams, detail: LayoutDetail, isPieced: Bool,
         fontFingerprint: String, bytes: Int, shapingBytes: Int, reused: Int, reshaped: Int, warnings: [String]) {
        self.tree = tree
        var params = params
        params.text = ""
        params.spans = []
        params.viewport = nil
        self.params = params
        self.detail = detail
        self.isPieced = isPieced
        self.gap = isPieced ? Self.gap(params) : 0
        self.fontFingerprint = fontFingerprint
        self.bytes = bytes
        self.shapingBytes = shapingBytes
        self.reusedParagraphs = reused
        self.reshapedParagraphs = reshaped
        self.warnings = warnings
    }

    /// A document of one layout laid out whole.
    convenience init(whole layout: RetainedLayout) {
        var tree = ParagraphTree<RetainedLayout>()
        // One piece: its lengths in other encodings are its mapping's (`length(in:)`), not
        // counted here, for a layout that is not kept.
        var summary = TextSummary(utf16: layout.text.count, lines: layout.layout.lines.count, height: layout.layout.height)
        summary.paragraphs = layout.layout.reusable?.paragraphCount ?? 1
        summary.widest = layout.layout.width
        tree.replace(0..<0, with: [(layout, summary)])
        self.init(tree: tree, params: layout.params, detail: layout.detail, isPieced: false,
                  fontFingerprint: layout.fontFingerprint, bytes: layout.bytes, shapingBytes: layout.shapingBytes,
                  reused: layout.layout.reusedParagraphs, reshaped: layout.layout.reshapedParagraphs,
                  warnings: layout.built.warnings)
    }

    /// The space between two pieces' lines under `params` (see `gap`).
    static func gap(_ params: LayoutParams) -> Double {
        let p = params.paragraph, scale = params.scale
        return ((p.paragraphSpacing ?? 0) + (p.paragraphSpacingBefore ?? 0) + (p.lineSpacing ?? 0)) * scale
    }

    /// A laid-out piece's summary: its text in every encoding, its paragraphs, lines and
    /// width, and its height with the gap above it (none for the first).
    static func summary(of piece: RetainedLayout, first: Bool, gap: Double) -> TextSummary {
        var summary = TextSummary(units: piece.text, lines: piece.layout.lines.count,
                                  height: piece.layout.height + (first ? 0 : gap))
        summary.paragraphs = piece.layout.reusable?.paragraphCount ?? 1
        summary.widest = piece.layout.width
        return summary
    }

    /// The whole document's summary.
    var summary: TextSummary { tree.summary }
    var pieceCount: Int { tree.count }
    var utf16Length: Int { summary.utf16 }
    var lineCount: Int { summary.lines }
    var width: Double { summary.widest }
    var height: Double { insetTop + summary.height + insetBottom }
    /// The insets the pieces leave to the document (the one piece of a whole one has them).
    var insetTop: Double { isPieced ? params.insets.top : 0 }
    var insetBottom: Double { isPieced ? params.insets.bottom : 0 }
    /// The first piece (a document always has one).
    var first: RetainedLayout { tree.item(at: 0)! }
}

/// A piece found in its document: which, where its text starts (every encoding) and its
/// lines, and the top of its first line.
struct PieceAt {
    let index: Int
    let piece: RetainedLayout
    let start: TextSummary
    let top: Double

    /// A document offset in `encoding` of the piece's UTF-16 offset `local`.
    func convert(_ local: Int, _ mapping: OffsetMapping) -> Int { start.length(mapping.encoding) + mapping.convert(local) }
    /// A document line index of the piece's line `local`.
    func line(_ local: Int) -> Int { start.lines + local }
    /// The document UTF-16 offset of the piece's `local`.
    func utf16(_ local: Int) -> Int { start.utf16 + local }
    /// The same piece as `layout`, another layout of its text (its full one).
    func with(_ layout: RetainedLayout) -> PieceAt { PieceAt(index: index, piece: layout, start: start, top: top) }
}

extension RetainedDocument {
    /// The piece at `index` (0 ..< pieceCount).
    func piece(at index: Int) -> PieceAt {
        let start = tree.start(of: index)
        return PieceAt(index: index, piece: tree.item(at: index)!, start: start, top: top(index, start))
    }

    private func top(_ index: Int, _ start: TextSummary) -> Double {
        insetTop + start.height + (index > 0 ? gap : 0)
    }

    private func found(_ hit: (index: Int, start: TextSummary)?) -> PieceAt {
        let hit = hit ?? (0, .zero)
        return PieceAt(index: hit.index, piece: tree.item(at: hit.index)!, start: hit.start, top: top(hit.index, hit.start))
    }

    /// The piece holding UTF-16 offset `offset` (the document's end: the last).
    func piece(holding offset: Int) -> PieceAt { found(tree.paragraph(at: offset, in: .utf16)) }
    /// The piece holding offset `offset` in `encoding`.
    func piece(holding offset: Int, in encoding: TextEncoding) -> PieceAt { found(tree.paragraph(at: offset, in: encoding)) }
    /// The piece whose band (the gap above it included) holds `y`.
    func piece(atY y: Double) -> PieceAt { found(tree.paragraph(atY: y - insetTop)) }
    /// The piece holding document line `line`.
    func piece(atLine line: Int) -> PieceAt { found(tree.paragraph(atLine: line)) }

    /// Each piece from the one holding UTF-16 offset `start` on, up to the last that
    /// starts before `end`. O(log n) per piece.
    func forEachPiece(from start: Int, to end: Int, _ body: (PieceAt) throws(RPCError) -> Void) throws(RPCError) {
        var at = piece(holding: start)
        while true {
            try body(at)
            let next = at.start.utf16 + at.piece.text.count
            guard at.index + 1 < pieceCount, next < end else { return }
            at = piece(at: at.index + 1)
        }
    }

    /// An offset param (in `encoding`) → its piece and the UTF-16 offset in it. Fails naming
    /// the field when it is past the end, or inside a character.
    func locate(_ offset: OffsetParam, encoding: OffsetEncoding) throws(RPCError) -> (at: PieceAt, local: Int) {
        let total = length(in: encoding)
        guard offset.value <= total else {
            throw .invalidParams(field: offset.field, "is past the end of the text (\(total) \(encoding.unitName))")
        }
        let at = isPieced ? piece(holding: offset.value, in: encoding.engineEncoding) : piece(at: 0)
        let local = OffsetParam(value: offset.value - at.start.length(encoding.engineEncoding), field: offset.field)
        let utf16 = try MethodContext.utf16Offset(local, text: at.piece.text, mapping: at.piece.mapping(encoding),
                                                  encoding: encoding)
        return (at, utf16)
    }

    /// The document's length in `encoding`.
    func length(in encoding: OffsetEncoding) -> Int {
        isPieced ? summary.length(encoding.engineEncoding) : first.mapping(encoding).length
    }

    /// The document offset in `encoding` of UTF-16 offset `offset`.
    func convert(_ offset: Int, _ encoding: OffsetEncoding) -> Int {
        let at = piece(holding: offset)
        return at.convert(offset - at.start.utf16, at.piece.mapping(encoding))
    }
}
