import LayoutEngine
import LayoutProtocol

/// `update`: edits applied to a retained layout's text and changes to its layout params, the
/// layout redone (its unchanged paragraphs taken over: their lines, or under new line
/// params their shaping), and what changed. Ordered: a connection's edits apply in the order
/// sent; the handle's lock keeps other connections' updates of it apart.
enum UpdateMethod: Method {
    static let name = "update"
    static let order = MethodOrder.ordered
    static let reportsUnknownHandleFirst = true

    static func decode(_ params: JSONValue?) throws(RPCError) -> UpdateParams { try UpdateParams(json: params) }

    static func run(_ p: UpdateParams, in context: MethodContext) throws(RPCError) -> UpdateResult {
        let store = context.service.store
        guard let result = try store.whileUpdating(p.handle, { () throws(RPCError) -> UpdateResult in
            try update(p, in: context)
        }) else { throw store.unknownHandle(p.handle) }
        return result
    }

    private static func update(_ p: UpdateParams, in context: MethodContext) throws(RPCError) -> UpdateResult {
        let service = context.service, session = context.session
        let old = try context.retained(p.handle)
        let edited = try service.updated(old, p, session: session)
        let new = edited.doc, diff = edited.diff
        guard service.store.replace(p.handle, with: new) else { throw service.store.unknownHandle(p.handle) }
        let inserted = insertedRanges(edited.inserted, in: new, encoding: session.offsetEncoding)
        LayoutStore.releaseLater(consume old)
        let changed = diff.first..<(diff.first + diff.added)
        let viewport = p.viewport.map { ViewportSelection($0, in: new) }
        let chosen = viewport.map { p.changedOnly ? $0.clamped(changed) : $0.lines } ?? (p.changedOnly ? changed : nil)
        try service.checkResultEstimate(new, lines: chosen)
        var layout = service.result(new, session: session, handle: p.handle, lines: chosen, viewport: p.viewport)
        if viewport != nil { layout.lineCount = new.lineCount }
        var result = UpdateResult(layout: layout, diff: UpdateResult.Diff(
            firstLine: diff.first, removed: diff.removed, added: diff.added, inserted: inserted,
            reusedParagraphs: new.reusedParagraphs, reshapedParagraphs: edited.reshaped))
        result.diff.viewportLines = viewport?.lines
        result.diff.viewportChanged = viewport?.clamped(changed)
        return result
    }

    /// The inserted ranges (document UTF-16) widened to whole grapheme clusters (UAX #29), in
    /// `encoding`.
    private static func insertedRanges(_ ranges: [Range<Int>], in doc: RetainedDocument,
                                       encoding: OffsetEncoding) -> [RangeResult] {
        ranges.map { range in
            let start = doc.piece(holding: range.lowerBound), end = doc.piece(holding: range.upperBound)
            let s = start.piece.graphemeStart(atOrBefore: range.lowerBound - start.start.utf16)
            let e = end.piece.graphemeEnd(atOrAfter: range.upperBound - end.start.utf16)
            return RangeResult(start: start.convert(s, start.piece.mapping(encoding)), end: end.convert(e, end.piece.mapping(encoding)))
        }
    }
}
