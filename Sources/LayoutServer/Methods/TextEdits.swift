import LayoutEngine
import LayoutProtocol

/// `update`'s edits applied to a retained layout's text and spans, in UTF-16, each to the
/// text as the edits before it left it (as LSP's `didChange`); and the ranges they inserted.
struct TextEdits {
    private(set) var text: [UInt16]
    private(set) var spans: [(start: Int, end: Int, attributes: SpanAttributes)]
    /// The ranges inserted, moved by the edits after them.
    private(set) var inserted: [Range<Int>] = []
    /// The last edit applied: the range it replaced and the length it inserted (UTF-16).
    private(set) var lastEdit: (replaced: Range<Int>, inserted: Int)?

    init(text: [UInt16], spans: [(start: Int, end: Int, attributes: SpanAttributes)]) {
        self.text = text
        self.spans = spans
    }

    /// Applies `edits` in order; nothing is kept when one is refused (the caller drops self).
    mutating func apply(_ edits: [UpdateParams.Edit], encoding: OffsetEncoding, maxTextLength: Int,
                        stop: (@Sendable () -> EngineError?)?) throws(RPCError) {
        for (i, edit) in edits.enumerated() {
            if let stopped = stop?() { throw LayoutService.rpcError(stopped) }
            try apply(edit, field: "edits[\(i)]", encoding: encoding, maxTextLength: maxTextLength)
        }
    }

    /// Appends text that follows, with its spans (relative to it).
    mutating func append(_ more: [UInt16], spans moreSpans: [(start: Int, end: Int, attributes: SpanAttributes)]) {
        let base = text.count
        text += more
        spans += moreSpans.map { (base + $0.start, base + $0.end, $0.attributes) }
    }

    mutating func apply(_ edit: UpdateParams.Edit, field: String, encoding: OffsetEncoding,
                        maxTextLength: Int) throws(RPCError) {
        let mapping = OffsetMapping(text: text, encoding: encoding.engineEncoding)
        let start = try MethodContext.utf16Offset(edit.start, text: text, mapping: mapping, encoding: encoding)
        let end = try MethodContext.utf16Offset(edit.end, text: text, mapping: mapping, encoding: encoding)
        guard end >= start else { throw .invalidParams(field: "\(field).end", "must not be less than `start`") }
        let insertion = utf16Units(of: edit.text)
        guard text.count - (end - start) + insertion.count <= maxTextLength else {
            throw .invalidParams(field: "\(field).text", "makes the text longer than \(maxTextLength) UTF-16 units (limits.maxDocumentLength, for retained documents)")
        }
        text.replaceSubrange(start..<end, with: insertion)
        lastEdit = (start..<end, insertion.count)
        let delta = insertion.count - (end - start)
        // An offset in the replaced range goes to the insertion's start, or its end for an
        // end offset (a span over the edit keeps covering what replaced it).
        func moved(_ o: Int, isEnd: Bool) -> Int {
            if o < start || (o == start && !isEnd) { return o }
            if o >= end { return o + delta }
            return isEnd ? start + insertion.count : start
        }
        spans = spans.map { (moved($0.start, isEnd: false), moved($0.end, isEnd: $0.end > start), $0.attributes) }
        inserted = inserted.map { moved($0.lowerBound, isEnd: false)..<moved($0.upperBound, isEnd: true) }
        if !insertion.isEmpty { inserted.append(start..<(start + insertion.count)) }
    }
}
