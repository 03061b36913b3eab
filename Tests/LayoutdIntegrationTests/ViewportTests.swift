import LayoutProtocol
import TestSupport
import Testing

/// `viewport: {y, height}` on `layout` and `update`, through the real daemon: the lines and
/// regions it lists are the slice of the whole result that meets the band, `size` and
/// `lineCount` describe the whole, and after every edit of a seeded random sequence on a
/// large retained document both the viewport and the full result equal a fresh layout.
@Suite struct ViewportTests {
    static let font: JSONValue = ["family": "Noto Sans", "size": 16]

    /// A document of `count` corpus paragraphs, one per line.
    func document(_ count: Int) throws -> String {
        let corpus = try loadCorpus()
        return (0..<count).map { corpus[$0 % corpus.count].text }.joined(separator: "\n")
    }

    /// What a viewport of `full` (a whole result) keeps: the lines and regions meeting the
    /// band, with `lineCount`; everything else as it is.
    func slice(_ full: JSONValue, y: Double, height: Double) -> JSONValue {
        func meets(_ v: JSONValue) -> Bool {
            let top = v["y"]?.doubleValue ?? 0, extent = v["height"]?.doubleValue ?? 0
            return top < y + height && top + extent > y
        }
        guard case .object(let members) = full, case .array(let lines)? = full["lines"],
              case .array(let regions)? = full["regions"] else { return full }
        var result: [(String, JSONValue)] = []
        for (key, value) in members where key != "handle" && key != "diff" {
            switch key {
            case "lines": result.append(("lineCount", .number(Double(lines.count)))); result.append((key, .array(lines.filter(meets))))
            case "regions": result.append((key, .array(regions.filter { $0["rects"]?.arrayValue?.contains(where: meets) ?? false })))
            default: result.append((key, value))
            }
        }
        return .object(result)
    }

    func withoutHandle(_ result: JSONValue) -> JSONValue {
        guard case .object(let members) = result else { return result }
        return .object(members.filter { $0.0 != "handle" && $0.0 != "diff" })
    }

    @Test func aViewportIsTheSliceOfTheWholeResult() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = try document(80)
        let base: [(String, JSONValue)] = [("text", .string(text)), ("font", Self.font), ("width", 420),
                                           ("spans", [["start": 5, "end": 900, "link": "https://example.org"]])]
        let full = try client.result("layout", .object(base))
        let height = try #require(full["size"]?["height"]?.doubleValue)
        for (y, h) in [(0.0, 800.0), (height / 2 + 0.37, 810.0), (height - 100.3, 800.0), (height + 50, 100.0),
                       (-300.0, 310.0), (1000.5, 0.0), (-10.0, height + 20)] {
            let viewport: JSONValue = ["y": .number(y), "height": .number(h)]
            let part = try client.result("layout", .object(base + [("viewport", viewport)]))
            #expect(part == slice(full, y: y, height: h), "viewport \(y) + \(h)")
            let retained = try client.result("layout", .object(base + [("viewport", viewport), ("retain", true)]))
            #expect(withoutHandle(retained) == part, "retained viewport \(y) + \(h)")
        }
    }

    @Test func randomEditsGiveAFreshLayoutsLinesInFullAndInTheViewport() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        var text = Array(try document(400).utf16)
        let base: [(String, JSONValue)] = [("font", Self.font), ("width", 380)]
        let handle = try #require(client.result("layout", .object(base + [("text", .string(String(decoding: text, as: UTF16.self))), ("retain", true)]))["handle"])
        var generator = SeededGenerator(state: 35)
        let insertions = ["a", " ", "word ", "\n", "é", "漢字", "🙂", "\n\nnew paragraph\n"]
        for step in 0..<40 {
            // A place at a character boundary (not inside a surrogate pair).
            var start = Int.random(in: 0...text.count, using: &generator)
            while start < text.count, UTF16.isTrailSurrogate(text[start]) { start += 1 }
            var end = min(text.count, start + (Bool.random(using: &generator) ? 0 : Int.random(in: 1...40, using: &generator)))
            while end < text.count, UTF16.isTrailSurrogate(text[end]) { end += 1 }
            let insertion = step % 3 == 2 ? "" : insertions.randomElement(using: &generator)!
            text.replaceSubrange(start..<end, with: Array(insertion.utf16))
            let edit: JSONValue = ["start": .number(Double(start)), "end": .number(Double(end)), "text": .string(insertion)]
            let freshRetained = try client.result("layout", .object(base + [("text", .string(String(decoding: text, as: UTF16.self))), ("retain", true)]))
            _ = try client.result("release", ["handle": freshRetained["handle"] ?? .null])
            let fresh = withoutHandle(freshRetained)
            let height = try #require(fresh["size"]?["height"]?.doubleValue)
            if step % 2 == 0 {
                let updated = try client.result("update", ["handle": handle, "edits": [edit]])
                // Positions are sums over the pieces above: the edited document's pieces are
                // cut where its edits left them, a fresh layout's anew (docs/protocol.md allows
                // the last digit written).
                let d = PiecedDocumentTests().difference(withoutHandle(updated), fresh)
                #expect(d == nil, "step \(step): full: \(d ?? "")")
            } else {
                let y = Double.random(in: -100...height, using: &generator), h = 50 * 22.0
                let updated = try client.result("update", ["handle": handle, "edits": [edit],
                                                           "viewport": ["y": .number(y), "height": .number(h)]])
                let d = PiecedDocumentTests().difference(withoutHandle(updated), slice(fresh, y: y, height: h))
                #expect(d == nil, "step \(step): viewport at \(y): \(d ?? "")")
                let lines = try #require(updated["diff"]?["viewport"]?["lines"])
                let first = try #require(updated["lines"]?.arrayValue?.first?["start"])
                #expect(lines["end"]!.intValue! - lines["start"]!.intValue! == updated["lines"]?.arrayValue?.count)
                #expect(fresh["lines"]?.arrayValue?[lines["start"]!.intValue!]["start"] == first, "step \(step)")
            }
        }
    }

    @Test func aChangedOnlyUpdateInAViewportListsTheChangedLinesInIt() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = try document(40)
        let handle = try #require(client.result("layout", ["text": .string(text), "font": Self.font, "width": 400, "retain": true])["handle"])
        let updated = try client.result("update", ["handle": handle, "edits": [["start": 3, "end": 3, "text": "xyz "]],
                                                   "result": "changed", "viewport": ["y": 0, "height": 200]])
        let diff = try #require(updated["diff"])
        let changed = try #require(diff["viewport"]?["changed"])
        #expect(diff["firstLine"] == 0)
        #expect(changed["start"] == 0 && (changed["end"]?.intValue ?? 0) >= 1)
        #expect(updated["lines"]?.arrayValue?.count == changed["end"]?.intValue)
        #expect((updated["lineCount"]?.intValue ?? 0) > 100)
        let away = try client.result("update", ["handle": handle, "edits": [["start": 3, "end": 3, "text": "q"]],
                                                "result": "changed", "viewport": ["y": 5000, "height": 200]])
        #expect(away["lines"]?.arrayValue?.isEmpty == true)
        #expect(away["diff"]?["viewport"]?["changed"]?["start"] == away["diff"]?["viewport"]?["changed"]?["end"])
    }

    @Test func aBadViewportIsRefusedNamingTheField() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        for (viewport, field) in [(["y": 0] as JSONValue, "viewport.height"), (["height": 10], "viewport.y"),
                                  (["y": 0, "height": -1], "viewport.height"), (["y": 0, "height": 1, "x": 2], "viewport.x"),
                                  ("top", "viewport")] as [(JSONValue, String)] {
            let reply = try client.call("layout", ["text": "Hello", "viewport": viewport])
            #expect(reply["error"]?["code"] == -32602, "\(viewport)")
            #expect(reply["error"]?["data"]?["field"]?.stringValue == field, "\(viewport)")
        }
    }
}
