import LayoutProtocol
import TestSupport
import Testing

/// Long retained documents, which the daemon keeps in pieces of whole paragraphs, through the
/// real daemon: every answer equals that of the same text laid out in one piece (a line limit
/// no text reaches keeps a document whole), and edits at paragraph boundaries — where pieces
/// are cut — joining, splitting and re-separating paragraphs (CR, LF, CRLF), several in one
/// update, give a fresh layout's result and shape only the paragraphs they touch.
@Suite struct PiecedDocumentTests {
    static let font: JSONValue = ["family": "Noto Sans", "size": 16]
    /// A line limit no test document reaches: it keeps the layout in one piece.
    static let whole: JSONValue = ["maxLines": 1_000_000]

    /// `count` corpus paragraphs joined by `separator`.
    func document(_ count: Int, separator: String = "\n") throws -> String {
        let corpus = try loadCorpus()
        return (0..<count).map { corpus[$0 % corpus.count].text }.joined(separator: separator)
    }

    func comparable(_ result: JSONValue) -> JSONValue {
        guard case .object(let members) = result else { return result }
        return .object(members.filter { $0.0 != "handle" && $0.0 != "diff" })
    }

    /// Where two results first differ (a path and both values), or nil when they are equal
    /// (numbers within the last digit written): a readable failure for results of thousands
    /// of lines.
    func difference(_ a: JSONValue, _ b: JSONValue, at path: String = "") -> String? {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            guard x.map(\.0) == y.map(\.0) else { return "\(path): members \(x.map(\.0)) vs \(y.map(\.0))" }
            for (m, n) in zip(x, y) { if let d = difference(m.1, n.1, at: path + "." + m.0) { return d } }
            return nil
        case (.array(let x), .array(let y)):
            guard x.count == y.count else { return "\(path): \(x.count) vs \(y.count) elements" }
            for (i, (m, n)) in zip(x, y).enumerated() { if let d = difference(m, n, at: path + "[\(i)]") { return d } }
            return nil
        case (.number(let x), .number(let y)) where abs(x - y) <= 0.0011:
            // Positions summed over pieces may differ in the last digit written.
            return nil
        default:
            return a == b ? nil : "\(path): \(JSONWriter.string(a)) vs \(JSONWriter.string(b))"
        }
    }

    /// The UTF-16 offsets where paragraphs start (after each separator).
    func paragraphStarts(_ text: [UInt16]) -> [Int] {
        var starts: [Int] = []
        var i = 0
        while i < text.count {
            if text[i] == 0x0D, i + 1 < text.count, text[i + 1] == 0x0A { i += 1 }
            if text[i] == 0x0A || text[i] == 0x0D { starts.append(i + 1) }
            i += 1
        }
        return starts
    }

    @Test func queriesOfAPiecedDocumentEqualThoseOfTheSameTextInOnePiece() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = try document(90)
        let units = Array(text.utf16)
        // Links across paragraph ends (a piece is not cut inside one) and one inside a paragraph.
        let starts = paragraphStarts(units)
        let spans: JSONValue = .array([starts[20] - 30, starts[41] - 5, starts[60] + 3].map { s in
            ["start": .number(Double(s)), "end": .number(Double(s + 60)), "link": "https://example.org"]
        })
        let base: [(String, JSONValue)] = [("text", .string(text)), ("font", Self.font), ("width", 360), ("spans", spans),
                                           ("detail", "runs"), ("retain", true)]
        let pieced = try client.result("layout", .object(base))
        let whole = try client.result("layout", .object(base + [("paragraph", Self.whole)]))
        #expect(difference(comparable(pieced), comparable(whole)) == nil)
        let a = try #require(pieced["handle"]), b = try #require(whole["handle"])
        let stats = try client.result("stats")
        #expect((stats["caches"]?["retainedLayouts"]?["pieces"]?.intValue ?? 0) > 2, "the long document is kept in pieces")
        // A viewport deep in the document numbers runs' fonts and styles as the whole result.
        let height = try #require(pieced["size"]?["height"]?.doubleValue)
        for y in [height / 2, height - 300] {
            let band: JSONValue = ["y": .number(y), "height": 400]
            let part = try client.result("layout", .object(base.dropLast() + [("viewport", band)]))
            #expect(difference(part, ViewportTests().slice(comparable(pieced), y: y, height: 400)) == nil, "viewport at \(y)")
        }
        func same(_ method: String, _ params: [(String, JSONValue)], _ note: String) throws {
            let one = try client.call(method, .object([("handle", a)] + params))
            let other = try client.call(method, .object([("handle", b)] + params))
            let d = difference(one["result"] ?? .null, other["result"] ?? .null)
            #expect(one["result"] != nil && d == nil, "\(method) \(note): \(d ?? "")")
        }
        let lines = try #require(pieced["lines"]?.arrayValue)
        for start in starts where start < units.count {
            for index in [start - 2, start - 1, start, start + 1] {
                let at: JSONValue = .number(Double(index))
                try same("caret", [("index", at)], "at \(index)")
                try same("caret", [("index", at), ("affinity", "upstream")], "upstream at \(index)")
                try same("word", [("index", at)], "at \(index)")
                try same("lineRange", [("index", at)], "at \(index)")
            }
            try same("rects", [("start", .number(Double(start - 40))), ("end", .number(Double(start + 40)))], "around \(start)")
        }
        // Points beside every line, inside it, and just past its bottom (not on a line's top
        // or bottom as written: the two layouts may put it a rounding error apart).
        for line in lines {
            let y = line["y"]?.doubleValue ?? 0, height = line["height"]?.doubleValue ?? 0
            for (x, dy) in [(-5.0, 0.01), (40.0, 0.5), (400.0, height - 0.25), (120.0, height + 0.01)] {
                try same("hitTest", [("x", .number(x)), ("y", .number(y + dy))], "at \(x), \(y + dy)")
            }
        }
        let selection: [(String, JSONValue)] = [("layouts", [["handle": a]]), ("start", ["layout": 0, "index": 100]),
                                                ("end", ["layout": 0, "index": .number(Double(units.count - 100))])]
        let selected = try client.result("selectedText", .object(selection))
        #expect(selected["text"]?.stringValue == String(decoding: units[100..<(units.count - 100)], as: UTF16.self))
        let across = try client.result("rects", .object(selection))
        let acrossWhole = try client.result("rects", .object([("layouts", [["handle": b]])] + selection.dropFirst()))
        #expect(difference(across, acrossWhole) == nil)
    }

    /// One step of the edit sequence: an edit at (or next to) a paragraph boundary.
    func boundaryEdit(_ text: [UInt16], using generator: inout SeededGenerator) -> (start: Int, end: Int, text: String) {
        let starts = paragraphStarts(text)
        let start = starts.randomElement(using: &generator) ?? text.count
        // The separator before `start`: one unit (LF or CR) or two (CRLF).
        let separator = start >= 2 && text[start - 2] == 0x0D && text[start - 1] == 0x0A ? 2 : 1
        switch Int.random(in: 0..<7, using: &generator) {
        case 0: return (start - separator, start, "")                 // join two paragraphs
        case 1: return (start - separator, start, " joined ")
        case 2: return (start - 1, start - 1, "\r")                    // LF → CRLF, CRLF → CR CRLF
        case 3: return (start, start, "\n")                            // an empty paragraph
        case 4: return (start - separator, start - separator, "x")     // the end of the paragraph before
        case 5: return (start, min(text.count, start + 3), "")          // the start of the one after
        default: return (start - separator, start - separator + 1, "")  // CRLF → LF, LF → nothing
        }
    }

    @Test func editsAtPieceBoundariesGiveAFreshLayoutAndShapeOnlyWhatTheyTouch() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        var text = Array(try document(160, separator: "\r\n").utf16)
        var base: [(String, JSONValue)] = [("font", Self.font), ("width", 380), ("detail", "runs")]
        func fresh(_ extra: [(String, JSONValue)] = []) throws -> JSONValue {
            let laidOut = try client.result("layout", .object(base + extra + [("text", .string(String(decoding: text, as: UTF16.self))), ("retain", true)]))
            _ = try client.result("release", ["handle": laidOut["handle"] ?? .null])
            return comparable(laidOut)
        }
        let handle = try #require(client.result("layout", .object(base + [("text", .string(String(decoding: text, as: UTF16.self))), ("retain", true)]))["handle"])
        var generator = SeededGenerator(state: 3535)
        for step in 0..<36 {
            // Several edits in one update every third step, each counted in the text the ones
            // before it left (as `update` applies them).
            var edits: [JSONValue] = []
            for _ in 0..<(step % 3 == 2 ? 3 : 1) {
                let edit = boundaryEdit(text, using: &generator)
                text.replaceSubrange(edit.start..<edit.end, with: Array(edit.text.utf16))
                edits.append(["start": .number(Double(edit.start)), "end": .number(Double(edit.end)), "text": .string(edit.text)])
            }
            let updated = try client.result("update", ["handle": handle, "edits": .array(edits)])
            #expect(difference(comparable(updated), try fresh()) == nil, "step \(step): \(edits)")
            let reshaped = updated["diff"]?["reshapedParagraphs"]?.intValue ?? .max
            #expect(reshaped <= 3 * edits.count, "step \(step): \(reshaped) paragraphs shaped again")
        }
        // A new width lays every piece out again without shaping; a line limit makes the
        // document one piece, and taking it away cuts it into pieces again.
        base[1].1 = 300
        let resized = try client.result("update", ["handle": handle, "width": 300])
        #expect(comparable(resized) == (try fresh()))
        #expect(resized["diff"]?["reshapedParagraphs"] == 0)
        let limited = try client.result("update", ["handle": handle, "paragraph": Self.whole])
        #expect(comparable(limited) == (try fresh([("paragraph", Self.whole)])))
        #expect(limited["diff"]?["reshapedParagraphs"] == 0)
        let unlimited = try client.result("update", ["handle": handle, "paragraph": ["maxLines": 0]])
        #expect(comparable(unlimited) == (try fresh()))
        #expect(unlimited["diff"]?["reshapedParagraphs"] == 0)
    }
}
