import LayoutEngine
import LayoutProtocol

/// `update`: edits applied to a retained layout's text, the layout redone, and what changed.
extension LayoutService {
    static let maxEditsPerUpdate = 1000

    func update(_ params: JSONValue?, session: Session) throws(RPCError) -> JSONValue {
        let reader = try ParamReader(params)
        guard let handle = try reader.string("handle", maxLength: 256) else { throw .invalidParams(field: "handle", "is required") }
        guard let result = try store.whileUpdating(handle, { () throws(RPCError) -> JSONValue in
            try update(handle, reader, session: session)
        }) else { throw unknownHandle(handle) }
        return result
    }

    private func update(_ handle: String, _ reader: ParamReader, session: Session) throws(RPCError) -> JSONValue {
        guard let old = store.get(handle) else { throw unknownHandle(handle) }
        guard let edits = reader.member("edits")?.arrayValue else {
            throw .invalidParams(field: "edits", "is required: an array of {start, end, text}")
        }
        // Each edit costs a pass over the text: bound them (send several updates for more).
        guard edits.count <= Self.maxEditsPerUpdate else {
            throw .invalidParams(field: "edits", "has more than \(Self.maxEditsPerUpdate) edits")
        }
        // Read before anything is applied: a bad value refuses the update whole.
        let changedOnly = try reader.choice("result", ["full", "changed"]) == "changed"
        // Each edit applies to the text as the edits before it left it (as LSP's didChange).
        var text = old.text
        var spans = old.built.spans
        var inserted: [Range<Int>] = []
        let stop = stopCheck(session)
        for (i, item) in edits.enumerated() {
            try checkStop(stop)
            let r = try ParamReader(item, path: "edits[\(i)]")
            let mapping = OffsetMapping(text: text, encoding: session.offsetEncoding.engineEncoding)
            func position(_ key: String) throws(RPCError) -> Int {
                guard let v = try r.integer(key, in: 0...Int(Int32.max)) else { throw .invalidParams(field: r.field(key), "is required (a text offset ≥ 0)") }
                guard v <= mapping.length else {
                    throw .invalidParams(field: r.field(key), "is past the end of the text (\(mapping.length) \(session.offsetEncoding.unitName))")
                }
                let u = mapping.utf16Offset(v)
                guard mapping.convert(u) == v, !(u > 0 && u < text.count && text[u] & 0xFC00 == 0xDC00 && text[u - 1] & 0xFC00 == 0xD800) else {
                    throw .invalidParams(field: r.field(key), "is inside a character (a surrogate pair or a UTF-8 sequence)")
                }
                return u
            }
            let start = try position("start"), end = try position("end")
            guard end >= start else { throw .invalidParams(field: r.field("end"), "must not be less than `start`") }
            let insertion = utf16Units(of: try r.string("text") ?? "")
            guard text.count - (end - start) + insertion.count <= configuration.maxTextLength else {
                throw .invalidParams(field: r.field("text"), "makes the text longer than \(configuration.maxTextLength) UTF-16 units")
            }
            text.replaceSubrange(start..<end, with: insertion)
            let delta = insertion.count - (end - start)
            func moved(_ o: Int, isEnd: Bool) -> Int {
                if o < start || (o == start && !isEnd) { return o }
                if o >= end { return o + delta }
                return isEnd ? start + insertion.count : start
            }
            spans = spans.map { (moved($0.start, isEnd: false), moved($0.end, isEnd: $0.end > start), $0.attributes) }
            inserted = inserted.map { moved($0.lowerBound, isEnd: false)..<moved($0.upperBound, isEnd: true) }
            if !insertion.isEmpty { inserted.append(start..<(start + insertion.count)) }
        }
        // The text and spans go on in UTF-16; the params keep everything else.
        var p = old.params
        p.text = ""
        p.spans = []
        let new = try perform(p, session: session, geometry: true, utf16Spans: spans, utf16Text: text, previous: old)
        guard store.replace(handle, with: new) else { throw unknownHandle(handle) }

        // Inserted text, widened to whole grapheme clusters.
        let mapping = new.mapping(session.offsetEncoding)
        let ranges: [JSONValue] = inserted.map { range in
            var a = range.lowerBound, b = range.upperBound
            while a > 0, !new.layout.isGraphemeBoundary(a) { a -= 1 }
            while b < text.count, !new.layout.isGraphemeBoundary(b) { b += 1 }
            return ["start": .number(Double(mapping.convert(a))), "end": .number(Double(mapping.convert(b)))]
        }
        let diff = lineDiff(old.layout.lines, new.layout.lines, textDelta: text.count - old.text.count,
                            knownSame: new.layout.unchangedLeadingLines)
        LayoutStore.releaseLater(consume old)
        let chosen = changedOnly ? diff.first..<(diff.first + diff.added) : nil
        try checkResultEstimate(new.layout, detail: new.detail, lines: chosen)
        var result = self.result(new, session: session, handle: handle, lines: chosen).wireJSON
        if case .object(var members) = result {
            members.append(("diff", ["firstLine": .number(Double(diff.first)), "removed": .number(Double(diff.removed)),
                                     "added": .number(Double(diff.added)), "inserted": .array(ranges),
                                     "reusedParagraphs": .number(Double(new.layout.reusedParagraphs))]))
            result = .object(members)
        }
        return result
    }

    /// Lines that differ between two layouts: the first that changed, how many of the old
    /// went and how many new came; the lines after them are the old ones moved (by the
    /// text's length change and by a common vertical shift).
    /// `knownSame`: leading lines the engine took over unchanged (not compared again).
    func lineDiff(_ old: [LineBox], _ new: [LineBox], textDelta: Int, knownSame: Int = 0) -> (first: Int, removed: Int, added: Int) {
        var first = min(knownSame, old.count, new.count)
        while first < old.count, first < new.count, sameLine(old[first], new[first], offsetDelta: 0, dy: 0) { first += 1 }
        var tail = 0
        if let lastOld = old.last, let lastNew = new.last {
            let dy = lastNew.y - lastOld.y
            while tail < old.count - first, tail < new.count - first,
                  sameLine(old[old.count - 1 - tail], new[new.count - 1 - tail], offsetDelta: textDelta, dy: dy) {
                tail += 1
            }
        }
        return (first, old.count - first - tail, new.count - first - tail)
    }

    private func sameLine(_ a: LineBox, _ b: LineBox, offsetDelta: Int, dy: Double) -> Bool {
        a.start + offsetDelta == b.start && a.end + offsetDelta == b.end && a.x == b.x && abs(a.y + dy - b.y) < 1e-9
            && a.width == b.width && a.height == b.height && a.hyphenated == b.hyphenated && a.showsToken == b.showsToken
    }
}
