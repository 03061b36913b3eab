import LayoutEngine
import LayoutProtocol

/// What the queries share: finding the layout a query is about, and checking offsets
/// against its text.
extension MethodContext {
    /// The layout `target` names: the retained one, or its params laid out for this query.
    func layout(_ target: LayoutTarget) throws(RPCError) -> RetainedDocument {
        switch target {
        case .handle(let handle): return try retained(handle)
        case .text(let params): return RetainedDocument(whole: try service.perform(params, session: session, keeping: .everything))
        }
    }

    /// The retained layout `handle` names; -32001 when there is none.
    func retained(_ handle: String) throws(RPCError) -> RetainedDocument {
        guard let retained = service.store.get(handle) else { throw service.store.unknownHandle(handle) }
        return retained
    }

    /// An offset param in the session's encoding → its piece of `doc` and the UTF-16 offset
    /// in it. Fails naming the field when it is past the end, or inside a character.
    func locate(_ offset: OffsetParam, in doc: RetainedDocument) throws(RPCError) -> (at: PieceAt, local: Int) {
        try doc.locate(offset, encoding: session.offsetEncoding)
    }

    /// An offset param in the session's encoding → the document's UTF-16 offset.
    func utf16Offset(_ offset: OffsetParam, in doc: RetainedDocument) throws(RPCError) -> Int {
        let (at, local) = try locate(offset, in: doc)
        return at.utf16(local)
    }

    /// `offset` in `text` (whose offsets `mapping` converts) → UTF-16.
    static func utf16Offset(_ offset: OffsetParam, text: [UInt16], mapping: OffsetMapping,
                            encoding: OffsetEncoding) throws(RPCError) -> Int {
        guard offset.value <= mapping.length else {
            throw .invalidParams(field: offset.field, "is past the end of the text (\(mapping.length) \(encoding.unitName))")
        }
        let utf16 = mapping.utf16Offset(offset.value)
        let splitsPair = utf16 > 0 && utf16 < text.count && text[utf16] & 0xFC00 == 0xDC00 && text[utf16 - 1] & 0xFC00 == 0xD800
        guard mapping.convert(utf16) == offset.value, !splitsPair else {
            throw .invalidParams(field: offset.field, "is inside a character (a surrogate pair or a UTF-8 sequence)")
        }
        return utf16
    }

    /// The caret affinity asked for (downstream when none was).
    static func affinity(_ name: String?) -> CaretAffinity {
        name.flatMap(CaretAffinity.init(rawValue:)) ?? .downstream
    }
}

extension RetainedLayout {
    /// The grapheme boundary at or before `offset` (UAX #29: a caret never splits a cluster).
    func graphemeStart(atOrBefore offset: Int) -> Int {
        // A compact layout keeps no boundary table (`TextLayout.boundaryKinds`).
        if isCompact { return graphemeBounds(around: offset, in: text).atOrBefore }
        var o = offset
        while o > 0, !layout.isGraphemeBoundary(o) { o -= 1 }
        return o
    }

    /// The grapheme boundary at or after `offset`.
    func graphemeEnd(atOrAfter offset: Int) -> Int {
        if isCompact { return graphemeBounds(around: offset, in: text).atOrAfter }
        var o = offset
        while o < text.count, !layout.isGraphemeBoundary(o) { o += 1 }
        return o
    }
}
