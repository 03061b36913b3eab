import Foundation
import Testing
import LayoutProtocol
import TestSupport

/// What a chat backend asks through the real socket: `measure` of short messages (most of
/// them one plain paragraph, measured without building lines) answers the size and line count
/// that `layout` of the same params gives, at bubble widths and narrower, in every direction,
/// and for messages `measure` lays out in full (spans, a line limit, several paragraphs).
@Suite("Chat measures through the socket")
struct ChatMeasureTests {
    /// Messages of 1–80 characters cut at seeded places from the corpus, as the bench's short
    /// row cuts them (line ends and tabs as spaces).
    static func messages(count: Int) throws -> [String] {
        var rng = SeededGenerator(state: 2000)
        let corpus = try loadCorpus()
        var cut: [String] = []
        while cut.count < count {
            let text = Array(corpus[Int.random(in: 0..<corpus.count, using: &rng)].text)
            let length = Int.random(in: 1...min(80, text.count), using: &rng)
            let start = Int.random(in: 0...(text.count - length), using: &rng)
            cut.append(String(text[start..<(start + length)]).replacingOccurrences(of: "\n", with: " ")
                .replacingOccurrences(of: "\t", with: " "))
        }
        return cut
    }

    /// `measure`'s answer as `layout` gives it: size and line count.
    func layoutSize(_ client: Client, _ params: JSONValue) throws -> JSONValue {
        let laid = try client.result("layout", params)
        return ["width": laid["size"]?["width"] ?? .null, "height": laid["size"]?["height"] ?? .null,
                "lineCount": .number(Double(laid["lines"]?.arrayValue?.count ?? -1)), "truncated": laid["truncated"] ?? .null]
    }

    func measureSize(_ client: Client, _ params: JSONValue) throws -> JSONValue {
        let measured = try client.result("measure", params)
        return ["width": measured["size"]?["width"] ?? .null, "height": measured["size"]?["height"] ?? .null,
                "lineCount": measured["lineCount"] ?? .null, "truncated": measured["truncated"] ?? .null]
    }

    @Test func shortMessagesMeasureAsTheyLayOut() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        var compared = 0, wrapped = 0
        for text in try Self.messages(count: 300) {
            for (width, direction) in [(280.0, "auto"), (90.0, "auto"), (90.0, "rtl"), (12.0, "ltr")] {
                let params: JSONValue = ["text": .string(text), "width": .number(width),
                                         "font": ["family": "Noto Sans", "size": 16],
                                         "paragraph": ["direction": .string(direction)]]
                let measured = try measureSize(client, params), laid = try layoutSize(client, params)
                #expect(measured == laid, "\(text) at \(width), \(direction)")
                compared += 1
                if (measured["lineCount"]?.intValue ?? 0) > 1 { wrapped += 1 }
            }
        }
        #expect(compared == 1200 && wrapped > 300)
    }

    /// Messages `measure` lays out in full give the same as before: spans, a line limit,
    /// several paragraphs, a tab, a soft hyphen, insets, justified lines.
    @Test func otherMessagesMeasureAsTheyLayOut() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "Meet @ana at the café\u{AD}teria — ok? مرحبا 👍"
        let variants: [JSONValue] = [
            ["text": .string(text), "width": 90, "spans": [["start": 5, "end": 9, "font": ["weight": 700]]]],
            ["text": .string(text), "width": 90, "paragraph": ["maxLines": 2]],
            ["text": .string(text + "\nsecond paragraph"), "width": 90],
            ["text": .string(text.replacingOccurrences(of: " at ", with: "\tat ")), "width": 90],
            ["text": .string(text), "width": 90, "insets": ["top": 4, "left": 6, "bottom": 4, "right": 6]],
            ["text": .string(text), "width": 90, "paragraph": ["align": "justify", "lineSpacing": 3]],
            ["text": .string(text), "width": 90, "paragraph": ["wrapStyle": "balance"]],
        ]
        for params in variants {
            #expect(try measureSize(client, params) == layoutSize(client, params), "\(params)")
        }
    }

    /// The same message measured again is answered from the kept sizes (`stats`
    /// `caches.measuredParagraphs`), with the same answer; `measureCacheEntries: 0` keeps none.
    @Test func measuredMessagesAreKept() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        func measured() throws -> JSONValue? { try client.result("stats")["caches"]?["measuredParagraphs"] }
        let before = try measured()
        #expect(before?["maxCount"] == 4096)
        let params: JSONValue = ["text": "Running late, be there in 10 🏃", "width": 120]
        let first = try client.result("measure", params)
        let again = try client.result("measure", params)
        // (The third through the connection's measure template, which hashes the settings
        // once for all its measures: the same size is found.)
        let third = try client.result("measure", params)
        #expect(first == again && first == third)
        let after = try measured()
        #expect((after?["hits"]?.intValue ?? 0) == (before?["hits"]?.intValue ?? 0) + 2)
        #expect((after?["count"]?.intValue ?? 0) == (before?["count"]?.intValue ?? 0) + 1)

        let off = try Daemon(limits: #"{"measureCacheEntries": 0}"#)
        defer { off.stop() }
        let offClient = try off.connect()
        #expect(try offClient.result("measure", params) == first)
        #expect(try offClient.result("measure", params) == first)
        let none = try offClient.result("stats")["caches"]?["measuredParagraphs"]
        #expect(none?["count"] == 0 && none?["hits"] == 0 && none?["maxCount"] == 0)
    }

    /// Message after message in one style on one connection, each measure taking the font
    /// lookups the one before it left (a connection's measures carry them): messages in
    /// scripts that fall back to other fonts between Latin ones, at widths with a fraction,
    /// each answered as `layout` answers on another connection.
    @Test func messagesInOneStyleMeasureAsLaidOut() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect(), reference = try daemon.connect()
        var rng = SeededGenerator(state: 36)
        var compared = 0
        for (k, text) in try Self.messages(count: 300).enumerated() {
            let width = Double(Int.random(in: 40...300, using: &rng)) + 0.25
            let params: JSONValue = ["text": .string(text), "width": .number(width), "font": ["family": "Noto Sans", "size": 16]]
            #expect(try measureSize(client, params) == layoutSize(reference, params), "\(k): \(text)")
            compared += 1
        }
        #expect(compared == 300)
    }

    /// One connection measuring message after message, at changing widths, with its font,
    /// paragraph, insets, language and offset encoding changed now and then (a connection's
    /// measures take the request its last one was built into when only text and width
    /// differ): every answer is what `layout` gives for the same params; bad params after a
    /// good run are still refused, naming the field.
    @Test func messageAfterMessageMeasuresAsLaidOut() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect(), reference = try daemon.connect()
        let others: [[(String, JSONValue)]] = [
            [("font", ["family": "Noto Sans", "size": 16])],
            [("font", ["family": "Noto Sans", "size": 16]), ("paragraph", ["align": "center", "lineHeightMultiple": 1.4])],
            [("font", ["family": "DejaVu Serif", "size": 13]), ("language", "ja")],
            [("insets", ["top": 3, "left": 5, "bottom": 3, "right": 5]), ("paragraph", ["direction": "rtl"])],
            [("font", ["family": "Noto Sans", "size": 16]), ("paragraph", ["maxLines": 2])],
        ]
        var rng = SeededGenerator(state: 77)
        var compared = 0
        for (k, text) in try Self.messages(count: 240).enumerated() {
            if k % 60 == 30 {   // the offset encoding changed midway through a run
                _ = try client.result("initialize", ["offsetEncodings": k % 120 == 30 ? ["utf-8"] : ["utf-16"]])
            }
            let width: JSONValue = k % 7 == 0 ? .null : .number(Double(Int.random(in: 20...300, using: &rng)))
            let params = JSONValue.object([("text", .string(text)), ("width", width)] + others[(k / 12) % others.count])
            #expect(try measureSize(client, params) == layoutSize(reference, params), "\(k): \(text)")
            compared += 1
        }
        #expect(compared == 240)
        _ = try client.result("measure", ["text": "hello", "width": 100, "font": ["family": "Noto Sans", "size": 16]])
        for (bad, field) in [(JSONValue.object([("text", "hello"), ("width", -5), ("font", ["family": "Noto Sans", "size": 16])]), "width"),
                             (.object([("text", 42), ("width", 100), ("font", ["family": "Noto Sans", "size": 16])]), "text")] {
            let reply = try client.call("measure", bad)
            #expect(reply["error"]?["code"] == -32602 && reply["error"]?["data"]?["field"] == .string(field), "\(reply)")
        }
    }
}

