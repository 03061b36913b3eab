import LayoutEngine
import LayoutProtocol

/// Queries on retained layouts (or on layout params laid out for the query): hit-testing,
/// carets, selection rectangles and text, word and line ranges, updates, release.
extension LayoutService {
    /// The layout a query is about: `handle`, or the layout params in the same object.
    func target(_ reader: ParamReader, session: Session) throws(RPCError) -> RetainedLayout {
        if let handle = try reader.string("handle", maxLength: 256) {
            guard let retained = store.get(handle) else { throw unknownHandle(handle) }
            return retained
        }
        guard reader.member("text") != nil else {
            throw .invalidParams(field: reader.field("handle"), "is required (or the layout params, with `text`)")
        }
        return try perform(LayoutParams(json: reader.value), session: session, geometry: true)
    }

    func unknownHandle(_ handle: String) -> RPCError {
        RPCError(.unknownHandle, "unknown handle \"\(handle)\": it was released or evicted (or never given); lay the text out again with retain: true",
                 data: ["field": "handle"])
    }

    /// A text offset param in the session's encoding → UTF-16. Fails naming the field when
    /// it is missing, past the end, or inside a character.
    func offset(_ reader: ParamReader, _ key: String, _ retained: RetainedLayout, session: Session) throws(RPCError) -> Int {
        guard let value = try reader.integer(key, in: 0...Int(Int32.max)) else {
            throw .invalidParams(field: reader.field(key), "is required (a text offset ≥ 0)")
        }
        let mapping = retained.mapping(session.offsetEncoding)
        guard value <= mapping.length else {
            throw .invalidParams(field: reader.field(key), "is past the end of the text (\(mapping.length) \(session.offsetEncoding.unitName))")
        }
        let utf16 = mapping.utf16Offset(value)
        guard mapping.convert(utf16) == value, !(utf16 > 0 && utf16 < retained.text.count
                                                 && retained.text[utf16] & 0xFC00 == 0xDC00 && retained.text[utf16 - 1] & 0xFC00 == 0xD800) else {
            throw .invalidParams(field: reader.field(key), "is inside a character (a surrogate pair or a UTF-8 sequence)")
        }
        return utf16
    }

    /// The grapheme boundary at or before `offset`.
    func graphemeStart(_ offset: Int, _ retained: RetainedLayout) -> Int {
        var o = offset
        while o > 0, !retained.layout.isGraphemeBoundary(o) { o -= 1 }
        return o
    }

    func hitTest(_ params: JSONValue?, session: Session) throws(RPCError) -> JSONValue {
        let reader = try ParamReader(params)
        let retained = try target(reader, session: session)
        guard let x = try reader.number("x", in: -1e9...1e9, what: "a number of points") else { throw .invalidParams(field: "x", "is required") }
        guard let y = try reader.number("y", in: -1e9...1e9, what: "a number of points") else { throw .invalidParams(field: "y", "is required") }
        guard let hit = retained.layout.hitTest(x: x, y: y) else { throw RPCError(.internalError, "internal error: no geometry kept") }
        let mapping = retained.mapping(session.offsetEncoding)
        var members: [(String, JSONValue)] = [
            ("index", .number(Double(mapping.convert(hit.index)))),
            ("character", hit.character.map { .number(Double(mapping.convert($0))) } ?? .null),
            ("line", .number(Double(hit.line))), ("affinity", .string(hit.affinity.rawValue))]
        if let region = retained.regions.last(where: { r in r.rects.contains { x >= $0.x && x < $0.maxX && y >= $0.y && y < $0.maxY } }) {
            var r: [(String, JSONValue)] = [("kind", .string(region.kind)), ("start", .number(Double(mapping.convert(region.start)))),
                                            ("end", .number(Double(mapping.convert(region.end))))]
            if let value = region.value { r.append(("value", value)) }
            if !region.enabled { r.append(("enabled", .bool(false))) }
            members.append(("region", .object(r)))
        }
        return .object(members)
    }

    func caret(_ params: JSONValue?, session: Session) throws(RPCError) -> JSONValue {
        let reader = try ParamReader(params)
        let retained = try target(reader, session: session)
        let index = graphemeStart(try offset(reader, "index", retained, session: session), retained)
        let affinity = try reader.choice("affinity", CaretAffinity.allCases.map(\.rawValue)).flatMap(CaretAffinity.init(rawValue:)) ?? .downstream
        guard let caret = retained.layout.caret(at: index, affinity: affinity) else {
            throw RPCError(.internalError, "internal error: no geometry kept")
        }
        var members: [(String, JSONValue)] = [("x", .number(wire(caret.x))), ("y", .number(wire(caret.y))),
                                              ("height", .number(wire(caret.height))), ("line", .number(Double(caret.line)))]
        if let weak = caret.weakX { members.append(("weak", ["x": .number(wire(weak))])) }
        return .object(members)
    }

    func rects(_ params: JSONValue?, session: Session) throws(RPCError) -> JSONValue {
        let reader = try ParamReader(params)
        if reader.member("layouts") != nil {
            let selection = try multiSelection(reader, session: session)
            // Each line a part touches gives at least one rect: refuse what cannot fit first.
            try checkOutputEstimate(selection.reduce(0) { $0 + $1.retained.layout.lineCount($1.start, $1.end) } * Self.minimumRectBytes)
            let stop = stopCheck(session)
            var parts: [JSONValue] = []
            for part in selection {
                try checkStop(stop)
                let rects = part.retained.layout.rects(part.start, part.end).map {
                    wireRect(Rect(x: $0.x + part.origin.x, y: $0.y + part.origin.y, width: $0.width, height: $0.height)).json
                }
                parts.append(["layout": .number(Double(part.index)), "rects": .array(rects)])
            }
            return ["layouts": .array(parts)]
        }
        let retained = try target(reader, session: session)
        let start = try offset(reader, "start", retained, session: session)
        let end = try offset(reader, "end", retained, session: session)
        guard end >= start else { throw .invalidParams(field: "end", "must not be less than `start`") }
        try checkOutputEstimate(retained.layout.lineCount(start, end) * Self.minimumRectBytes)
        return ["rects": .array(retained.layout.rects(start, end).map { wireRect($0).json })]
    }

    /// The fewest bytes a rect takes in a result.
    static let minimumRectBytes = 34

    func selectedText(_ params: JSONValue?, session: Session) throws(RPCError) -> JSONValue {
        let reader = try ParamReader(params)
        let separator = try reader.string("separator", maxLength: 1024) ?? "\n"
        guard reader.member("layouts") != nil else { throw .invalidParams(field: "layouts", "is required") }
        let parts = try multiSelection(reader, session: session)
        // Every UTF-16 unit selected is at least one byte of the answer.
        try checkOutputEstimate(parts.reduce(0) { $0 + $1.end - $1.start + separator.utf8.count })
        let stop = stopCheck(session)
        var text = ""
        for (i, part) in parts.enumerated() {
            try checkStop(stop)
            if i > 0 { text += separator }
            text += String(decoding: part.retained.text[part.start..<part.end], as: UTF16.self)
        }
        return ["text": .string(text)]
    }

    /// Layouts one selection may list.
    static let maxSelectionLayouts = 10_000

    /// A selection running from `start {layout, index}` to `end {layout, index}` through the
    /// listed layouts: for each layout it touches, the UTF-16 range selected in it.
    func multiSelection(_ reader: ParamReader, session: Session)
        throws(RPCError) -> [(index: Int, retained: RetainedLayout, origin: (x: Double, y: Double), start: Int, end: Int)] {
        guard let list = reader.member("layouts")?.arrayValue, !list.isEmpty else {
            throw .invalidParams(field: "layouts", "must be a non-empty array of {handle, origin}")
        }
        guard list.count <= Self.maxSelectionLayouts else {
            throw .invalidParams(field: "layouts", "lists \(list.count) layouts; at most \(Self.maxSelectionLayouts) are allowed")
        }
        var layouts: [(RetainedLayout, (x: Double, y: Double))] = []
        for (i, item) in list.enumerated() {
            let r = try ParamReader(item, path: "layouts[\(i)]")
            guard let handle = try r.string("handle", maxLength: 256) else { throw .invalidParams(field: r.field("handle"), "is required") }
            guard let retained = store.get(handle) else { throw unknownHandle(handle) }
            let origin = try r.object("origin")
            let x = try origin?.number("x", in: -1e9...1e9, what: "a number of points") ?? 0
            let y = try origin?.number("y", in: -1e9...1e9, what: "a number of points") ?? 0
            layouts.append((retained, (x, y)))
        }
        func position(_ key: String) throws(RPCError) -> (Int, Int) {
            guard let p = try reader.object(key) else { throw .invalidParams(field: key, "is required: {layout, index}") }
            guard let layout = try p.integer("layout", in: 0...(layouts.count - 1)) else {
                throw .invalidParams(field: p.field("layout"), "is required: an index into `layouts`")
            }
            return (layout, try offset(p, "index", layouts[layout].0, session: session))
        }
        var (startLayout, startIndex) = try position("start")
        var (endLayout, endIndex) = try position("end")
        if (endLayout, endIndex) < (startLayout, startIndex) { swap(&startLayout, &endLayout); swap(&startIndex, &endIndex) }
        return (startLayout...endLayout).map { i in
            let retained = layouts[i].0
            return (i, retained, layouts[i].1, i == startLayout ? startIndex : 0, i == endLayout ? endIndex : retained.text.count)
        }
    }

    func word(_ params: JSONValue?, session: Session) throws(RPCError) -> JSONValue {
        let reader = try ParamReader(params)
        let retained = try target(reader, session: session)
        let index = try offset(reader, "index", retained, session: session)
        let boundaries: [Int]
        do { boundaries = try engine.boundaries(.word, of: retained.text, language: retained.params.language ?? "") } catch {
            throw Self.rpcError(error)
        }
        // The segment holding the character at index (the one before it at the very end).
        let k = max(0, min(boundaries.partitionPoint { $0 <= index } - 1, boundaries.count - 2))
        let mapping = retained.mapping(session.offsetEncoding)
        let start = boundaries[k], end = boundaries.count > 1 ? boundaries[k + 1] : 0
        return ["start": .number(Double(mapping.convert(start))), "end": .number(Double(mapping.convert(end)))]
    }

    func lineRange(_ params: JSONValue?, session: Session) throws(RPCError) -> JSONValue {
        let reader = try ParamReader(params)
        let retained = try target(reader, session: session)
        let index = try offset(reader, "index", retained, session: session)
        let affinity = try reader.choice("affinity", CaretAffinity.allCases.map(\.rawValue)).flatMap(CaretAffinity.init(rawValue:)) ?? .downstream
        guard let l = retained.layout.lineIndex(of: index, affinity: affinity) else { throw RPCError(.internalError, "internal error: no lines") }
        let line = retained.layout.lines[l]
        // The paragraph around it: from after the previous separator to past the next one.
        let text = retained.text
        var ps = line.start
        while ps > 0, ![0x0A, 0x0D, 0x85, 0x2029].contains(text[ps - 1]) { ps -= 1 }
        var pe = line.end
        while pe < text.count, pe > 0, ![0x0A, 0x0D, 0x85, 0x2029].contains(text[pe - 1]) { pe += 1 }
        if pe < text.count, pe > 0, text[pe - 1] == 0x0D, text[pe] == 0x0A { pe += 1 }
        let mapping = retained.mapping(session.offsetEncoding)
        return ["start": .number(Double(mapping.convert(line.start))), "end": .number(Double(mapping.convert(line.end))),
                "line": .number(Double(l)),
                "paragraph": ["start": .number(Double(mapping.convert(ps))), "end": .number(Double(mapping.convert(pe)))]]
    }

    func release(_ params: JSONValue?) throws(RPCError) -> JSONValue {
        let reader = try ParamReader(params)
        guard let handle = try reader.string("handle", maxLength: 256) else { throw .invalidParams(field: "handle", "is required") }
        return ["released": .bool(store.release(handle))]
    }
}
