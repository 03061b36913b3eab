import Foundation
import LayoutProtocol
import Testing

/// Retained layouts and the queries on them, through the socket.
@Suite(.serialized) struct QueryTests {
    func retain(_ client: Client, _ params: [(String, JSONValue)]) throws -> (String, LayoutResult) {
        let result = try #require(LayoutResult(json: client.result("layout", .object(params + [("retain", true)]))))
        return (try #require(result.handle), result)
    }

    @Test func handlesAreKeptReleasedAndEvicted() throws {
        let daemon = try Daemon(limits: #"{"retainedLayouts": 2}"#)
        defer { daemon.stop() }
        let client = try daemon.connect()
        let (a, _) = try retain(client, [("text", "first")])
        let (b, _) = try retain(client, [("text", "second")])
        #expect(a != b)
        // Handles are shared: another connection can use them.
        let other = try daemon.connect()
        #expect(try other.result("caret", ["handle": .string(b), "index": 0])["x"] != nil)
        _ = try client.result("caret", ["handle": .string(a), "index": 0])   // a is now the most recent
        let (_, _) = try retain(client, [("text", "third")])                // evicts b, the least recently used
        let gone = try client.call("caret", ["handle": .string(b), "index": 0])
        #expect(gone["error"]?["code"] == -32001)
        #expect(gone["error"]?["message"]?.stringValue?.contains("retain: true") == true)
        #expect(try client.result("release", ["handle": .string(a)])["released"] == true)
        #expect(try client.result("release", ["handle": .string(a)])["released"] == false)
        #expect(try client.call("hitTest", ["handle": .string(a), "x": 0, "y": 0])["error"]?["code"] == -32001)
    }

    @Test func hitTestAndCaretAgree() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "Tap the link here, or type more words to wrap"
        let (handle, layout) = try retain(client, [("text", .string(text)), ("width", 150),
                                                   ("spans", [["start": 8, "end": 12, "link": "https://example.com"]])])
        // Every caret position maps back to itself.
        for index in 0...text.utf16.count {
            let line = layout.lines.firstIndex { $0.start <= index && index < $0.end } ?? layout.lines.count - 1
            let caret = try client.result("caret", ["handle": .string(handle), "index": .number(Double(index)), "affinity": "downstream"])
            let x = try #require(caret["x"]?.doubleValue), y = try #require(caret["y"]?.doubleValue)
            let hit = try client.result("hitTest", ["handle": .string(handle), "x": .number(x + 0.01), "y": .number(y + 1)])
            #expect(hit["index"]?.intValue == index, "caret \(index) at x \(x) hits \(hit["index"].map(JSONWriter.string) ?? "-")")
            #expect(caret["line"]?.intValue == line, "a downstream caret sits on the line its index starts")
        }
        // The link's region is under its rect; beside the text there is no character.
        let link = try #require(layout.regions.first { $0.kind == "link" })
        let r = link.rects[0]
        let onLink = try client.result("hitTest", ["handle": .string(handle), "x": .number(r.x + r.width / 2), "y": .number(r.y + r.height / 2)])
        #expect(onLink["region"]?["kind"] == "link" && onLink["region"]?["value"] == "https://example.com")
        #expect(onLink["character"]?.intValue.map { $0 >= 8 && $0 < 12 } == true)
        let beside = try client.result("hitTest", ["handle": .string(handle), "x": 1000, "y": 1])
        #expect(beside["character"] == .null && beside["index"]?.intValue == layout.lines[0].end && beside["affinity"] == "upstream")
        let below = try client.result("hitTest", ["handle": .string(handle), "x": 0, "y": 1000])
        #expect(below["line"]?.intValue == layout.lines.count - 1)
        // After a newline the caret is on the next line, whatever the affinity asked for.
        let (paragraphs, _) = try retain(client, [("text", "one\ntwo")])
        let upstream = try client.result("caret", ["handle": .string(paragraphs), "index": 4, "affinity": "upstream"])
        #expect(upstream["line"] == 1 && upstream["x"] == 0)
    }

    @Test func caretsAtBidiBoundariesAndInsideLigatures() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let (handle, _) = try retain(client, [("text", "abc אבג def")])
        // Between "abc " and the Hebrew word: the strong caret after the space (LTR), the weak
        // one at the Hebrew word's right end.
        let caret = try client.result("caret", ["handle": .string(handle), "index": 4])
        let weak = try #require(caret["weak"]?["x"]?.doubleValue)
        #expect(try #require(caret["x"]?.doubleValue) < weak)
        let inside = try client.result("caret", ["handle": .string(handle), "index": 5])
        #expect(inside["weak"] == nil)
        // "ffi" in Noto Sans is one ligature glyph: carets inside it are spread across it.
        let (lig, _) = try retain(client, [("text", "office"), ("detail", "glyphs")])
        let xs = try (1...4).map { try #require(client.result("caret", ["handle": .string(lig), "index": .number(Double($0))])["x"]?.doubleValue) }
        #expect(xs == xs.sorted() && Set(xs).count == 4, "four distinct carets through o|f|f|i|ce: \(xs)")
    }

    @Test func rectsWordsLinesAndSelectionAcrossLayouts() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "Select some words across lines please\nand a second paragraph"
        let (handle, layout) = try retain(client, [("text", .string(text)), ("width", 120)])
        let rects = try #require(client.result("rects", ["handle": .string(handle), "start": 7, "end": 30])["rects"]?.arrayValue)
        #expect(rects.count >= 2, "one rect per line fragment")
        let word = try client.result("word", ["handle": .string(handle), "index": 9])
        #expect(word["start"] == 7 && word["end"] == 11)
        let line = try client.result("lineRange", ["handle": .string(handle), "index": 40])
        #expect(line["paragraph"]?["start"] == 38 && line["paragraph"]?["end"] == .number(Double(text.utf16.count)))
        #expect(line["start"]?.intValue == layout.lines.first { $0.start <= 40 && 40 < $0.end }?.start)
        let (second, _) = try retain(client, [("text", "next message")])
        let selection: [(String, JSONValue)] = [
            ("layouts", [["handle": .string(handle)], ["handle": .string(second), "origin": ["x": 0, "y": 200]]]),
            ("start", ["layout": 0, "index": 44]), ("end", ["layout": 1, "index": 4])]
        let joined = try client.result("selectedText", .object(selection + [("separator", " | ")]))
        #expect(joined["text"] == "second paragraph | next")
        let parts = try #require(client.result("rects", .object(selection))["layouts"]?.arrayValue)
        #expect(parts.count == 2 && parts[1]["rects"]?.arrayValue?.first?["y"] == 200)
        // The same queries accept layout params instead of a handle.
        let direct = try client.result("word", ["text": "hello world", "index": 8])
        #expect(direct["start"] == 6 && direct["end"] == 11)
    }

    @Test func offsetsInsideCharactersAreRefused() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let pair = try client.call("caret", ["text": "😀x", "index": 1])
        #expect(pair["error"]?["code"] == -32602 && pair["error"]?["data"]?["field"] == "index")
        let past = try client.call("caret", ["text": "ab", "index": 3])
        #expect(past["error"]?["data"]?["field"] == "index")
        _ = try client.result("initialize", ["offsetEncodings": ["utf-8"]])
        let sequence = try client.call("caret", ["text": "é", "index": 1])
        #expect(sequence["error"]?["code"] == -32602)
        #expect(try client.result("caret", ["text": "é", "index": 2])["x"] != nil)
    }

    @Test func updatesEqualFreshLayouts() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let corpus = try loadCorpus()
        var seed: UInt64 = 42
        func random(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(max(n, 1)))
        }
        let pieces = ["a", " ", "word ", "\n", "שלום ", "你好", "😀", "é", "-", "long insertion of several words "]
        for trial in 0..<6 {
            var text = corpus[random(corpus.count)].text + "\n" + corpus[random(corpus.count)].text
            let base: [(String, JSONValue)] = [("width", .number(Double(150 + random(250)))), ("detail", "runs"),
                                               ("paragraph", ["align": trial % 2 == 0 ? "start" : "justify"])]
            let (handle, _) = try retain(client, [("text", .string(text))] + base)
            for _ in 0..<8 {
                var units = Array(text.utf16)
                // A random edit at character boundaries.
                var start = random(units.count + 1), end = min(units.count, start + random(12))
                while start > 0, start < units.count, units[start] & 0xFC00 == 0xDC00 { start -= 1 }
                while end > 0, end < units.count, units[end] & 0xFC00 == 0xDC00 { end += 1 }
                end = max(start, end)
                let insertion = random(3) == 0 ? "" : pieces[random(pieces.count)]
                let updated = try client.result("update", ["handle": .string(handle),
                                                           "edits": [["start": .number(Double(start)), "end": .number(Double(end)), "text": .string(insertion)]]])
                units.replaceSubrange(start..<end, with: Array(insertion.utf16))
                text = String(decoding: units, as: UTF16.self)
                let fresh = try client.result("layout", .object([("text", .string(text))] + base))
                guard case .object(let members) = updated else { Issue.record("update result is not an object"); return }
                let withoutDiff = JSONValue.object(members.filter { $0.0 != "diff" && $0.0 != "handle" })
                #expect(withoutDiff == fresh, "trial \(trial): update after [\(start), \(end)) ← \"\(insertion)\" differs from a fresh layout")
                let diff = try #require(updated["diff"])
                let first = try #require(diff["firstLine"]?.intValue), added = try #require(diff["added"]?.intValue)
                let lines = try #require(updated["lines"]?.arrayValue)
                #expect(first + added <= lines.count)
                if !insertion.isEmpty {
                    let inserted = try #require(diff["inserted"]?.arrayValue?.first)
                    #expect((inserted["start"]?.intValue ?? -1) <= start && (inserted["end"]?.intValue ?? -1) >= start + insertion.utf16.count)
                }
            }
        }
    }

    @Test func streamingReTypesetsOnlyTheLastParagraph() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let corpus = try loadCorpus()
        var text = corpus.prefix(50).map(\.text).joined(separator: "\n")
        let (handle, first) = try retain(client, [("text", .string(text)), ("width", 360)])
        var lineCount = first.lines.count
        for chunk in ["Streaming ", "text arrives ", "a few words ", "at a time."] {
            let end = text.utf16.count
            let reply = try client.result("update", ["handle": .string(handle), "result": "changed",
                                                     "edits": [["start": .number(Double(end)), "end": .number(Double(end)), "text": .string(chunk)]]])
            text += chunk
            let diff = try #require(reply["diff"])
            #expect(diff["reusedParagraphs"] == 49, "only the last paragraph is laid out again")
            let firstLine = try #require(diff["firstLine"]?.intValue)
            #expect(firstLine >= lineCount - 1, "the change starts on the last line or after")
            let changed = try #require(reply["lines"]?.arrayValue)
            #expect(changed.count == diff["added"]?.intValue, "result: changed returns the changed lines only")
            let fresh = try #require(LayoutResult(json: client.result("layout", ["text": .string(text), "width": 360])))
            lineCount = fresh.lines.count
            #expect(changed.compactMap(LineResult.init(json:)) == Array(fresh.lines[firstLine...]), "they are the fresh layout's lines")
            #expect(reply["size"] == ["width": .number(fresh.width), "height": .number(fresh.height)])
        }
    }

    @Test func pipelinedUpdatesApplyInOrder() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        var text = "Streaming:"
        let (handle, _) = try retain(client, [("text", .string(text)), ("width", 200)])
        // Ten appends sent at once, as a streaming client would: each applies to what the one
        // before left.
        for i in 0..<10 {
            let chunk = " chunk\(i)"
            let end = text.utf16.count
            text += chunk
            try client.connection.send(RPCRequest(id: .number(Double(i)), method: "update", params: [
                "handle": .string(handle), "result": "changed",
                "edits": [["start": .number(Double(end)), "end": .number(Double(end)), "text": .string(chunk)]]]).json)
        }
        for i in 0..<10 {
            let reply = try #require(try client.connection.receive())
            #expect(reply["id"] == .number(Double(i)) && reply["result"] != nil, "updates answer in order")
        }
        let last = try #require(LayoutResult(json: client.result("update", ["handle": .string(handle), "edits": []])))
        let fresh = try #require(LayoutResult(json: client.result("layout", ["text": .string(text), "width": 200])))
        #expect(last.lines == fresh.lines)
    }

    @Test func updateCarriesSpansThroughEdits() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let (handle, _) = try retain(client, [("text", "see the docs now"), ("spans", [["start": 8, "end": 12, "link": "L"]])])
        let updated = try #require(LayoutResult(json: client.result("update", ["handle": .string(handle), "edits": [
            ["start": 0, "end": 3, "text": "read"],      // before the link: it moves by +1
            ["start": 11, "end": 11, "text": "-page"],   // inside the link: it grows
        ]])))
        let link = try #require(updated.regions.first { $0.kind == "link" })
        #expect(link.start == 9 && link.end == 18, "read the docs-page now: the link covers docs-page")
        let bad = try client.call("update", ["handle": .string(handle), "edits": [["start": 5, "end": 2, "text": "x"]]])
        #expect(bad["error"]?["data"]?["field"] == "edits[0].end")
        let many = try client.call("update", ["handle": .string(handle),
                                              "edits": .array(Array(repeating: ["start": 0, "end": 0, "text": "x"], count: 1001))])
        #expect(many["error"]?["data"]?["field"] == "edits")
    }
}
