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
        var edits = TextEdits(text: old.text, spans: old.built.spans)
        try edits.apply(p.edits, encoding: session.offsetEncoding, maxTextLength: service.configuration.maxDocumentLength,
                        stop: service.stopCheck(session))
        // The text and spans go on in UTF-16; the params keep everything else, as changed.
        var params = try p.changes.applied(to: old.params)
        params.text = ""
        params.spans = []
        params.viewport = nil
        let new = try service.perform(params, session: session, geometry: true, utf16Spans: edits.spans,
                                      utf16Text: edits.text, previous: old)
        guard service.store.replace(p.handle, with: new) else { throw service.store.unknownHandle(p.handle) }
        let inserted = insertedRanges(edits.inserted, in: new, encoding: session.offsetEncoding)
        let diff = LineDiff(old.layout.lines, new.layout.lines, textDelta: edits.text.count - old.text.count,
                            knownSame: new.layout.unchangedLeadingLines)
        LayoutStore.releaseLater(consume old)
        let changed = diff.first..<(diff.first + diff.added)
        let viewport = p.viewport.map { ViewportSelection($0, lines: new.layout.lines) }
        let chosen = viewport.map { p.changedOnly ? $0.clamped(changed) : $0.lines } ?? (p.changedOnly ? changed : nil)
        try service.checkResultEstimate(new.layout, detail: new.detail, lines: chosen)
        var layout = service.result(new, session: session, handle: p.handle, lines: chosen)
        if let viewport { layout = viewport.applied(to: layout, lineCount: new.layout.lines.count) }
        var result = UpdateResult(layout: layout, diff: UpdateResult.Diff(
            firstLine: diff.first, removed: diff.removed, added: diff.added, inserted: inserted,
            reusedParagraphs: new.layout.reusedParagraphs, reshapedParagraphs: new.layout.reshapedParagraphs))
        result.diff.viewportLines = viewport?.lines
        result.diff.viewportChanged = viewport?.clamped(changed)
        return result
    }

    /// The inserted ranges widened to whole grapheme clusters (UAX #29), in `encoding`.
    private static func insertedRanges(_ ranges: [Range<Int>], in layout: RetainedLayout,
                                       encoding: OffsetEncoding) -> [RangeResult] {
        let mapping = layout.mapping(encoding)
        return ranges.map { range in
            RangeResult(start: mapping.convert(layout.graphemeStart(atOrBefore: range.lowerBound)),
                        end: mapping.convert(layout.graphemeEnd(atOrAfter: range.upperBound)))
        }
    }
}
