import LayoutProtocol
import TestSupport
import Testing

/// A long document retained at `detail: "lines"` keeps its pieces compact (lines and kept
/// shaping, no runs or positions) until a query reads them, through the real daemon: every
/// answer equals that of the same text laid out in one piece, a piece's full layout is made
/// once and its memory counted, and releasing the document gives all of it back.
@Suite struct CompactPieceTests {
    let pieces = PiecedDocumentTests()

    func retainedBytes(_ client: Client) throws -> Double {
        try client.result("stats")["caches"]?["retainedLayouts"]?["bytes"]?.doubleValue ?? -1
    }

    @Test func compactPiecesAnswerAsTheWholeTextAndCountWhatTheyAdd() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = try pieces.document(90)
        let units = Array(text.utf16), starts = pieces.paragraphStarts(units)
        let base: [(String, JSONValue)] = [("text", .string(text)), ("font", PiecedDocumentTests.font), ("width", 360),
                                           ("retain", true)]
        let compact = try client.result("layout", .object(base))
        let whole = try client.result("layout", .object(base + [("paragraph", PiecedDocumentTests.whole)]))
        #expect(pieces.difference(pieces.comparable(compact), pieces.comparable(whole)) == nil)
        let a = try #require(compact["handle"]), b = try #require(whole["handle"])
        func same(_ method: String, _ params: [(String, JSONValue)], _ note: String) throws {
            let one = try client.call(method, .object([("handle", a)] + params))
            let other = try client.call(method, .object([("handle", b)] + params))
            let d = pieces.difference(one["result"] ?? .null, other["result"] ?? .null)
            #expect(one["result"] != nil && d == nil, "\(method) \(note): \(d ?? "")")
        }
        // The first caret in a piece makes its full layout, counted; a second makes none.
        let before = try retainedBytes(client)
        try same("caret", [("index", .number(Double(starts[45] + 1)))], "in the middle")
        let after = try retainedBytes(client)
        #expect(after > before, "the full layout of the piece queried is counted")
        try same("caret", [("index", .number(Double(starts[45] + 3)))], "again")
        #expect(try retainedBytes(client) == after, "a piece's full layout is made once")
        for start in starts where start % 7 == 0 || start == starts[10] || start == starts[70] {
            try same("caret", [("index", .number(Double(start))), ("affinity", "upstream")], "at \(start)")
            try same("rects", [("start", .number(Double(start - 40))), ("end", .number(Double(start + 40)))], "around \(start)")
        }
        for line in (compact["lines"]?.arrayValue ?? []).enumerated() where line.offset % 9 == 0 {
            let y = (line.element["y"]?.doubleValue ?? 0) + 0.5
            try same("hitTest", [("x", 40), ("y", .number(y))], "at line \(line.offset)")
        }
        // A keystroke in a piece no query reached yet, then one with new params (its pieces
        // compact again), each followed by a caret at the edit.
        for (k, change) in [[], [("width", JSONValue.number(300))]].enumerated() {
            let at = starts[20 + 40 * k] + 2
            let edit: [(String, JSONValue)] = [("edits", [["start": .number(Double(at)), "end": .number(Double(at)), "text": "x"]])]
            let one = try client.result("update", .object([("handle", a)] + edit + change))
            let other = try client.result("update", .object([("handle", b)] + edit + change))
            #expect(pieces.difference(pieces.comparable(one), pieces.comparable(other)) == nil, "update \(k)")
            #expect(one["diff"]?["inserted"] == other["diff"]?["inserted"], "inserted ranges \(k)")
            try same("caret", [("index", .number(Double(at + 1)))], "after update \(k)")
        }
        _ = try client.result("release", ["handle": a])
        _ = try client.result("release", ["handle": b])
        #expect(try retainedBytes(client) == 0, "releasing the documents gives back all they counted")
    }

    /// Compact pieces keep their shaping without glyphs (fetched again from the shape cache
    /// when a query first reads a piece): the same document retained at `detail: "runs"`
    /// keeps them, and holds more; a caret in a compact piece then answers as there.
    @Test func compactPiecesKeepNoGlyphs() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = try pieces.document(60)
        let starts = pieces.paragraphStarts(Array(text.utf16))
        func retained(_ detail: String) throws -> (handle: JSONValue, shapingBytes: Double) {
            let result = try client.result("layout", .object([("text", .string(text)), ("font", PiecedDocumentTests.font),
                                                              ("width", 360), ("retain", true), ("detail", .string(detail))]))
            let stats = try client.result("stats")["caches"]?["retainedLayouts"]
            let bytes = stats?["shapingBytes"]?.doubleValue ?? -1
            _ = try client.result("release", .object([("handle", result["handle"] ?? .null)]))
            return (result["handle"] ?? .null, bytes)
        }
        let compact = try retained("lines"), runs = try retained("runs")
        #expect(compact.shapingBytes > 0 && runs.shapingBytes > 0)
        #expect(compact.shapingBytes < 0.8 * runs.shapingBytes,
                "compact \(compact.shapingBytes) bytes of shaping against \(runs.shapingBytes) with glyphs")
        let base: [(String, JSONValue)] = [("text", .string(text)), ("font", PiecedDocumentTests.font), ("width", 360)]
        let a = try #require(try client.result("layout", .object(base + [("retain", true)]))["handle"])
        let b = try #require(try client.result("layout", .object(base + [("retain", true), ("detail", "runs")]))["handle"])
        for start in starts.enumerated() where start.offset % 6 == 1 {
            let index: JSONValue = .number(Double(start.element + 2))
            let one = try client.result("caret", .object([("handle", a), ("index", index)]))
            let other = try client.result("caret", .object([("handle", b), ("index", index)]))
            #expect(pieces.difference(one, other) == nil, "caret at \(start.element + 2)")
        }
    }
}
