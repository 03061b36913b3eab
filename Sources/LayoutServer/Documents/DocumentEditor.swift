import LayoutEngine
import LayoutProtocol

/// `update`'s edits applied to a pieced document, piece by piece: each edit opens a region
/// of the pieces it touches (their text and spans joined and edited), later edits inside the
/// region edit it further, and a region is laid out again (cut into pieces anew, each taking
/// over what it can of the pieces it replaced) when an edit falls outside it or the edits
/// end. Pieces no edit touches are neither read nor moved: their offsets and tops are sums
/// in the tree.
struct DocumentEditor {
    /// The pieces of the text being edited, one region of them aside.
    private struct Region {
        /// The tree's pieces the region replaces, and where they start.
        var pieces: Range<Int>
        var start: TextSummary
        var edits: TextEdits
        var previous: [RetainedLayout]
    }

    let service: LayoutService
    let session: Session
    let old: RetainedDocument
    private(set) var tree: ParagraphTree<RetainedLayout>
    private let params: LayoutParams
    private let gap: Double
    private var region: Region?
    /// The ranges inserted (document UTF-16), moved by the edits after them.
    private(set) var inserted: [Range<Int>] = []
    /// The tree's pieces laid out anew (and any between them), after the edits so far.
    private(set) var changed: Range<Int>?
    /// Memory and work of the pieces laid out, less that of those they replaced.
    private(set) var bytes: Int
    private(set) var shapingBytes: Int
    private(set) var laid = PieceTally()
    private var laidPieces: Set<ObjectIdentifier> = []

    init(_ old: RetainedDocument, service: LayoutService, session: Session) {
        self.old = old
        self.service = service
        self.session = session
        self.tree = old.tree
        self.params = RetainedDocument.pieceParams(old.params)
        self.gap = old.gap
        self.bytes = old.currentBytes
        self.shapingBytes = old.shapingBytes
    }

    /// Applies one edit (offsets in the session's encoding, into the text as the edits
    /// before it left it).
    mutating func apply(_ edit: UpdateParams.Edit, field: String, maxLength: Int) throws(RPCError) {
        let encoding = session.offsetEncoding, units = encoding.engineEncoding
        if let r = region, !holds(r, edit, units) { try flush() }
        if region == nil { region = try open(for: edit, encoding: encoding) }
        guard var r = region else { return }
        region = nil
        let base = r.start.length(units)
        var local = edit
        local.start.value -= base
        local.end.value -= base
        let others = tree.summary.utf16 - (tree.start(of: r.pieces.upperBound).utf16 - r.start.utf16)
        try r.edits.apply(local, field: field, encoding: encoding, maxTextLength: maxLength - others)
        if let last = r.edits.lastEdit {
            record(replaced: (r.start.utf16 + last.replaced.lowerBound)..<(r.start.utf16 + last.replaced.upperBound),
                   inserting: last.inserted)
        }
        region = r
    }

    /// Whether a later edit lies within the region (not at its start, where the piece before
    /// may end in a CR that a LF would join).
    private func holds(_ r: Region, _ edit: UpdateParams.Edit, _ units: TextEncoding) -> Bool {
        let start = r.start.length(units), end = start + TextSummary(units: r.edits.text).length(units)
        return (edit.start.value > start || r.pieces.lowerBound == 0) && edit.start.value >= start && edit.end.value <= end
    }

    /// The region of the pieces an edit touches: from the one holding its start (and the one
    /// before, when that ends in a CR) to the one holding its last unit.
    private func open(for edit: UpdateParams.Edit, encoding: OffsetEncoding) throws(RPCError) -> Region {
        let units = encoding.engineEncoding, total = tree.summary.length(units)
        for offset in [edit.start, edit.end] where offset.value > total {
            throw .invalidParams(field: offset.field, "is past the end of the text (\(total) \(encoding.unitName))")
        }
        let first = tree.paragraph(at: edit.start.value, in: units) ?? (0, .zero)
        var lower = first.index
        let upper = edit.end.value > edit.start.value
            ? max(lower, tree.paragraph(at: edit.end.value - 1, in: units)?.index ?? lower) : lower
        if edit.start.value == first.start.length(units), lower > 0, tree.item(at: lower - 1)?.text.last == 0x0D {
            lower -= 1
        }
        var edits = TextEdits(text: [], spans: [])
        var previous: [RetainedLayout] = []
        for i in lower...upper {
            let piece = tree.item(at: i)!
            edits.append(piece.text, spans: piece.built.spans)
            previous.append(piece)
        }
        return Region(pieces: lower..<(upper + 1), start: tree.start(of: lower), edits: edits, previous: previous)
    }

    /// Moves the inserted ranges by an edit and adds its own.
    private mutating func record(replaced: Range<Int>, inserting count: Int) {
        let delta = count - replaced.count
        func moved(_ o: Int, isEnd: Bool) -> Int {
            if o < replaced.lowerBound || (o == replaced.lowerBound && !isEnd) { return o }
            if o >= replaced.upperBound { return o + delta }
            return isEnd ? replaced.lowerBound + count : replaced.lowerBound
        }
        inserted = inserted.map { moved($0.lowerBound, isEnd: false)..<moved($0.upperBound, isEnd: true) }
        if count > 0 { inserted.append(replaced.lowerBound..<(replaced.lowerBound + count)) }
    }

    /// Lays the region out again: extended over the pieces after it until it ends where a
    /// paragraph does, cut anew, each new piece taking over what it can of one it replaces.
    mutating func flush() throws(RPCError) {
        guard var r = region else { return }
        region = nil
        var upper = r.pieces.upperBound
        while upper < tree.count, let next = tree.item(at: upper), !Self.endsParagraph(r.edits.text, before: next.text) {
            r.edits.append(next.text, spans: next.built.spans)
            r.previous.append(next)
            upper += 1
        }
        let ranges = DocumentCuts.ranges(r.edits.text, spans: r.edits.spans)
        let spans = DocumentCuts.split(r.edits.spans, at: ranges)
        var items: [(item: RetainedLayout, summary: TextSummary)] = []
        for (k, range) in ranges.enumerated() {
            // As the piece it replaces was kept: compact, taking over its lines, until a query
            // reads its runs (text streamed into a document no one queries stays compact);
            // in full, taking over the full layout's lines, once a query made one.
            let old = r.previous[min(k, r.previous.count - 1)], prior = old.full ?? old
            let piece = try service.perform(params, session: session, keeping: prior.isCompact ? .reusable : .everything,
                                            utf16Spans: spans[k], utf16Text: Array(r.edits.text[range]),
                                            previous: prior.layout.reusable,
                                            continues: k < ranges.count - 1 || upper < tree.count)
            laid.add(piece)
            laidPieces.insert(ObjectIdentifier(piece))
            items.append((piece, RetainedDocument.summary(of: piece, first: r.pieces.lowerBound == 0 && k == 0, gap: gap)))
        }
        for i in r.pieces.lowerBound..<upper {
            let replaced = tree.item(at: i)!
            bytes -= replaced.currentBytes
            shapingBytes -= replaced.shapingBytes
        }
        for item in items {
            bytes += item.item.bytes
            shapingBytes += item.item.shapingBytes
        }
        tree.replace(r.pieces.lowerBound..<upper, with: items)
        markChanged(r.pieces.lowerBound..<upper, count: items.count)
    }

    /// Whether `text` may end a piece before one of `next`: it ends with a paragraph
    /// separator, and not with a CR that `next`'s LF joins.
    static func endsParagraph(_ text: [UInt16], before next: [UInt16]) -> Bool {
        guard let last = text.last else { return false }
        return LayoutEngine.endsParagraph(last) && !(last == 0x0D && next.first == 0x0A)
    }

    /// `changed` after the pieces `replaced` gave way to `count` new ones.
    private mutating func markChanged(_ replaced: Range<Int>, count: Int) {
        let made = replaced.lowerBound..<(replaced.lowerBound + count)
        guard let c = changed else { changed = made; return }
        let delta = count - replaced.count
        let lower = c.lowerBound >= replaced.upperBound ? c.lowerBound + delta : min(c.lowerBound, replaced.lowerBound)
        let upper = c.upperBound > replaced.upperBound ? c.upperBound + delta
            : (c.upperBound > replaced.lowerBound ? made.upperBound : c.upperBound)
        changed = min(lower, made.lowerBound)..<max(upper, made.upperBound)
    }

    /// How many of the document's paragraphs were taken over, not laid out: all but those
    /// the pieces laid out anew laid out themselves.
    func reusedParagraphs() -> Int {
        var notReused = 0
        if let changed {
            for i in changed {
                let piece = tree.item(at: i)!
                guard laidPieces.contains(ObjectIdentifier(piece)) else { continue }
                notReused += (piece.layout.reusable?.paragraphCount ?? 1) - piece.layout.reusedParagraphs
            }
        }
        return tree.summary.paragraphs - notReused
    }
}
