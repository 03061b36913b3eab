import Foundation
import LayoutProtocol
import Testing

/// Run and glyph detail, wrap modes and `boundaries`, through the socket.
@Suite(.serialized) struct DetailTests {
    @Test func runsAndGlyphsInTheClientsEncoding() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        _ = try client.result("initialize", ["offsetEncodings": ["utf-8"]])
        let text = "naïve שלום 😀 end"
        let raw = try client.result("layout", ["text": .string(text), "detail": "glyphs"])
        let result = try #require(LayoutResult(json: raw))
        let runs = try #require(result.lines.first?.runs)
        let bytes = Array(text.utf8)
        // Runs in visual order; the Hebrew one right to left; together they cover the text.
        #expect(runs.map { String(decoding: bytes[$0.start..<$0.end], as: UTF8.self) }.joined() != "")
        #expect(runs.reduce(0) { $0 + $1.end - $1.start } == bytes.count)
        #expect(runs.contains { $0.direction == "rtl" && String(decoding: bytes[$0.start..<$0.end], as: UTF8.self).contains("שלום") })
        for (a, b) in zip(runs, runs.dropFirst()) { #expect(abs(a.x + a.width - b.x) < 0.01) }
        for run in runs {
            let glyphs = try #require(run.glyphs)
            #expect(!glyphs.isEmpty)
            #expect(glyphs.allSatisfy { $0.cluster >= run.start && $0.cluster < run.end }, "clusters in UTF-8 bytes, inside the run")
            #expect(abs(glyphs.reduce(0) { $0 + $1.advance } - run.width) < 0.01)
            #expect(run.font >= 0 && run.font < result.fonts.count)
        }
        let families = Set(runs.map { result.fonts[$0.font].family })
        #expect(families == ["Noto Sans", "Noto Sans Hebrew", "Noto Color Emoji"])
        #expect(result.fonts.allSatisfy { $0.file.hasPrefix("/") && $0.size == 16 })

        let plain = try #require(LayoutResult(json: client.result("layout", ["text": .string(text)])))
        #expect(plain.lines[0].runs == nil, "no runs unless asked for")
        #expect(plain.fonts.map(\.family) == ["Noto Sans"])
    }

    @Test func wrapModesAndSoftHyphens() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        func starts(_ params: JSONValue) throws -> [Int] {
            try #require(LayoutResult(json: client.result("layout", params))).lines.map(\.start)
        }
        #expect(try starts(["text": "alpha beta gamma", "width": 60]) == [0, 6, 11])
        #expect(try starts(["text": "alpha beta gamma", "width": 60, "paragraph": ["wrap": "char"]]) == [0, 7, 13])
        #expect(try starts(["text": "alpha beta gamma", "width": 60, "paragraph": ["wrap": "none"]]) == [0])
        let bad = try client.call("layout", ["text": "x", "paragraph": ["wrap": "sometimes"]])
        #expect(bad["error"]?["data"]?["field"] == "paragraph.wrap")

        let hyphenated = try #require(LayoutResult(json: client.result("layout", ["text": "extra\u{AD}ordinarily", "width": 90])))
        #expect(hyphenated.lines.map(\.start) == [0, 6])
        #expect(hyphenated.lines[0].hyphenated && !hyphenated.lines[1].hyphenated)
    }

    @Test func openTypeFeaturesAndVariations() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        func width(_ font: JSONValue) throws -> Double {
            try #require(LayoutResult(json: client.result("layout", ["text": "AVAVAV Tyre", "font": font]))).width
        }
        let kerned = try width(["family": "Noto Sans"])
        let unkerned = try width(["family": "Noto Sans", "features": ["kern": false]])
        #expect(unkerned > kerned + 1, "turning kerning off widens AV pairs")
        #expect(try width(["family": "Noto Sans", "features": ["kern": 1]]) == kerned)
        // Weight picks the nearest face; the result names it.
        let bold = try #require(LayoutResult(json: client.result("layout", ["text": "bold", "font": ["family": "Noto Sans", "weight": 700]])))
        #expect(bold.fonts.first?.file.hasSuffix("NotoSans-Bold.ttf") == true)
        // Axis values on a face that is not variable change nothing and are not reported.
        let varied = try #require(LayoutResult(json: client.result("layout", ["text": "AVAVAV Tyre", "font": ["family": "Noto Sans", "variations": ["wdth": 80]]])))
        #expect(varied.width == kerned && varied.fonts.first?.variations == [:])
        // Inter, the pinned variable font: weight goes on its wght axis, variations override it.
        let inter = try #require(LayoutResult(json: client.result("layout", ["text": "Hamburg", "font": ["family": "Inter", "weight": 700]])))
        #expect(inter.fonts.first?.variations == ["wght": 700])
        let light = try #require(LayoutResult(json: client.result("layout", ["text": "Hamburg", "font": ["family": "Inter", "weight": 700, "variations": ["wght": 300]]])))
        #expect(light.fonts.first?.variations == ["wght": 300] && light.width < inter.width)
        for (font, field) in [(["features": ["toolong": true]] as JSONValue, "font.features.toolong"),
                              (["features": ["kern": "yes"]], "font.features.kern"),
                              (["features": ["kern": 70000]], "font.features.kern"),
                              (["variations": ["wght": "bold"]], "font.variations.wght"),
                              (["variations": []], "font.variations")] {
            let reply = try client.call("layout", ["text": "x", "font": font])
            #expect(reply["error"]?["data"]?["field"] == .string(field), "\(JSONWriter.string(reply))")
        }
    }

    @Test func boundariesOfEveryKind() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        func offsets(_ text: String, _ kind: String, language: String? = nil) throws -> [Int] {
            var params: [(String, JSONValue)] = [("text", .string(text)), ("kind", .string(kind))]
            if let language { params.append(("language", .string(language))) }
            return try #require(client.result("boundaries", .object(params))["offsets"]?.arrayValue).compactMap(\.intValue)
        }
        #expect(try offsets("e\u{301}👍🏽!", "grapheme") == [0, 2, 6, 7])
        #expect(try offsets("Hello, world.", "word") == [0, 5, 6, 7, 12, 13])
        #expect(try offsets("One. Two? Three", "sentence") == [0, 5, 10, 15])
        #expect(try offsets("a b-c d", "line") == [0, 2, 4, 6, 7])
        #expect(try offsets("สวัสดีครับ", "line", language: "th") == [0, 6, 10], "dictionary breaking for Thai")
        #expect(try offsets("", "word") == [0])
        _ = try client.result("initialize", ["offsetEncodings": ["utf-8"]])
        #expect(try offsets("é😀", "grapheme") == [0, 2, 6])
        let missing = try client.call("boundaries", ["text": "x"])
        #expect(missing["error"]?["data"]?["field"] == "kind")
        let wrong = try client.call("boundaries", ["text": "x", "kind": "paragraph"])
        #expect(wrong["error"]?["data"]?["field"] == "kind")
    }
}
