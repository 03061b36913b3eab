import Foundation
import LayoutProtocol
import Testing

/// `paragraph.hyphenation` through the socket: `auto` breaks words where Debian's libhyphen
/// dictionaries allow (English, German, French), shows the hyphen at the line's end as the
/// line's, not the text's, and leaves URLs, mentions and links whole.
@Suite(.serialized) struct HyphenationIntegrationTests {
    static let font: JSONValue = ["family": "Noto Sans", "size": 16]

    /// The hyphenated lines' ends, over every width from 20 to `word`'s own in steps of one
    /// point, of `word` laid out alone: each break point the dictionary gives is the first
    /// line's end at some width (the furthest that fits with its hyphen).
    func breaks(_ client: Client, _ word: String, _ language: String) throws -> Set<Int> {
        let whole = try #require(LayoutResult(json: client.result("layout", ["text": .string(word), "font": Self.font])))
        var ends: Set<Int> = []
        for width in stride(from: 20.0, through: whole.width, by: 1) {
            let result = try #require(LayoutResult(json: client.result("layout", [
                "text": .string(word), "width": .number(width), "font": Self.font, "language": .string(language),
                "paragraph": ["hyphenation": "auto"]])))
            for line in result.lines where line.hyphenated { ends.insert(line.end) }
            #expect(result.lines.allSatisfy { $0.width <= width + 0.001 }, "\(word) at \(width)")
        }
        return ends
    }

    /// The break points of `hyphenated` ("hy-phen-ation"), in UTF-16 units of the word.
    func points(_ hyphenated: String) -> Set<Int> {
        var points: Set<Int> = [], at = 0
        for unit in hyphenated.utf16 {
            if unit == 0x2D { points.insert(at) } else { at += 1 }
        }
        return points
    }

    @Test func wordListsHyphenateAsLibhyphenDoes() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        // hyph_en_US, hyph_de_DE (ISO 8859-1 patterns) and hyph_fr, CSS's minimums (2, 2, 5).
        let lists: [(String, [String])] = [
            ("en-US", ["hy-phen-ation", "ty-pog-ra-phy", "in-ter-na-tional", "break-ing"]),
            ("de", ["Sil-ben-tren-nung", "Do-nau-dampf-schiff-fahrt", "Über-set-zung", "Schrift-satz"]),
            ("fr", ["ty-po-gra-phie", "dic-tion-naire", "or-di-na-teur"]),
        ]
        for (language, words) in lists {
            for hyphenated in words {
                let word = hyphenated.replacingOccurrences(of: "-", with: "")
                #expect(try breaks(client, word, language) == points(hyphenated), "\(language) \(hyphenated)")
            }
        }
    }

    @Test func theHyphenIsTheLinesNotTheText() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "The typography conference"
        let params: JSONValue = ["text": .string(text), "width": 185, "font": Self.font, "language": "en-US",
                                 "paragraph": ["hyphenation": "auto"], "detail": "glyphs", "retain": true]
        let raw = try client.result("layout", params)
        let result = try #require(LayoutResult(json: raw))
        let handle = try #require(raw["handle"]?.stringValue)
        // "The typography confer-" then "ence": the hyphen closes the first line only.
        #expect(result.lines.map(\.start) == [0, 21])
        #expect(result.lines.map(\.hyphenated) == [true, false])
        let first = result.lines[0]
        let runs = try #require(first.runs)
        let glyphs = try #require(runs.last?.glyphs)
        // One glyph per letter and space, and the hyphen after them on the last cluster.
        #expect(runs.reduce(0) { $0 + ($1.glyphs?.count ?? 0) } == 22)
        #expect(glyphs.last?.cluster == 20)
        #expect(abs(runs.reduce(0) { $0 + $1.width } - first.width) < 0.01)
        // Selecting the first line selects its text, without the hyphen.
        let selection: JSONValue = ["layouts": [["handle": .string(handle)]], "start": ["layout": 0, "index": 0],
                                    "end": ["layout": 0, "index": 21]]
        #expect(try client.result("selectedText", selection)["text"] == "The typography confer")
        let rects = try client.result("rects", ["handle": .string(handle), "start": 0, "end": 21])["rects"]?.arrayValue ?? []
        let selected = try #require(rects.first?["width"]?.doubleValue)
        #expect(selected < first.width - 3, "the hyphen is not selected")
        // The caret after "confer" sits before the hyphen; a click on the hyphen goes there too.
        let caret = try #require(client.result("caret", ["handle": .string(handle), "index": 21, "affinity": "upstream"])["x"]?.doubleValue)
        #expect(abs(caret - selected) < 0.01)
        let hit = try client.result("hitTest", ["handle": .string(handle), "x": .number(first.width - 1), "y": 10])
        #expect(hit["index"] == 21 && hit["line"] == 0)
    }

    /// The hyphen is shaped with the letter before it: "LV" + soft hyphen + "AV" broken after
    /// "LV" draws "LV‐" as HarfBuzz shapes "LV‐" (the V's advance without the kerning it had
    /// before the "A", now on the next line), and the line keeps its width; the same with a
    /// hyphen `auto` adds.
    @Test func theHyphenIsShapedWithTheLetterBeforeIt() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let font: JSONValue = ["family": "Noto Sans", "size": 40]
        func glyphs(_ params: [String: JSONValue]) throws -> (line: LineResult, advances: [Double]) {
            var all = params
            all["font"] = all["font"] ?? font
            all["detail"] = "glyphs"
            let result = try #require(LayoutResult(json: client.result("layout", .object(all.sorted { $0.key < $1.key }))))
            let line = try #require(result.lines.first)
            return (line, (line.runs ?? []).flatMap { ($0.glyphs ?? []).map(\.advance) })
        }
        // "LV‐" shaped as one text, and "LVAV" (the V kerned towards the A).
        let together = try glyphs(["text": "LV\u{2010}"]).advances
        let kerned = try glyphs(["text": "LVAV"]).advances
        #expect(together.count == 3 && kerned.count == 4 && abs(together[1] - kerned[1]) > 0.5,
                "the font kerns V before A and not before the hyphen: \(together) \(kerned)")
        let (line, advances) = try glyphs(["text": "LV\u{AD}AV", "width": 75])
        #expect(line.hyphenated && line.end == 3, "broken after the soft hyphen")
        #expect(advances.count == 3 && abs(advances[1] - together[1]) < 0.01, "V as before a hyphen: \(advances) vs \(together)")
        #expect(abs(advances.reduce(0, +) - line.width) < 0.01, "the line keeps its width")
        // `auto`: the first line, "The typography confer" and its hyphen, drawn as the text
        // "The typography confer‐" is shaped, but for the hyphen's advance (the line's width
        // is kept).
        let auto = try glyphs(["text": "The typography conference", "width": 185, "language": "en-US",
                               "paragraph": ["hyphenation": "auto"], "font": Self.font])
        let shaped = try glyphs(["text": "The typography confer\u{2010}", "font": Self.font]).advances
        #expect(auto.line.hyphenated && auto.advances.count == shaped.count)
        #expect(zip(auto.advances.dropLast(), shaped.dropLast()).allSatisfy { abs($0 - $1) < 0.01 },
                "\(auto.advances) vs \(shaped)")
        #expect(abs(auto.advances.reduce(0, +) - auto.line.width) < 0.01, "the line keeps its width")
    }

    @Test func urlsMentionsAndLinksStayWhole() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "read https://example.com/internationalization and ask @internationalization about internationalization"
        let linked = (text as NSString).range(of: "internationalization", options: .backwards)
        let url = (text as NSString).range(of: "https://example.com/internationalization")
        let mention = (text as NSString).range(of: "@internationalization")
        var hyphenatedAnywhere = false
        for width in stride(from: 60.0, through: 260, by: 7) {
            let result = try #require(LayoutResult(json: client.result("layout", [
                "text": .string(text), "width": .number(width), "font": Self.font, "language": "en",
                "paragraph": ["hyphenation": "auto"], "detectors": ["url", "mention"],
                "spans": [["start": .number(Double(linked.location)), "end": .number(Double(NSMaxRange(linked))),
                           "link": "https://example.com"]]])))
            for line in result.lines where line.hyphenated {
                hyphenatedAnywhere = true
                for whole in [url, mention, linked] {
                    #expect(!(line.end > whole.location && line.end < NSMaxRange(whole)), "width \(width): \(line.end)")
                }
            }
        }
        // Every long word of the text is in one of them: nothing is hyphenated at any width.
        #expect(!hyphenatedAnywhere)
        // The same word as plain text does hyphenate.
        let plain = try #require(LayoutResult(json: client.result("layout", [
            "text": "ask about internationalization", "width": 120, "font": Self.font, "language": "en",
            "paragraph": ["hyphenation": "auto"]])))
        #expect(plain.lines.contains { $0.hyphenated })
    }

    @Test func noneManualMinimumsAndMissingDictionaries() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        func lines(_ text: String, _ width: Double, _ paragraph: JSONValue, language: String = "en") throws -> [LineResult] {
            try #require(LayoutResult(json: client.result("layout", ["text": .string(text), "width": .number(width),
                                                                     "font": Self.font, "language": .string(language),
                                                                     "paragraph": paragraph]))).lines
        }
        // `none`: a soft hyphen breaks nothing; `manual` (the default): it does; auto: both.
        let soft = "extra\u{AD}ordinarily"
        #expect(try lines(soft, 90, ["hyphenation": "none"]).allSatisfy { !$0.hyphenated })
        #expect(try lines(soft, 90, [:]).map(\.start) == [0, 6])
        #expect(try lines(soft, 90, ["hyphenation": "manual"]).map(\.start) == [0, 6])
        // Minimums: three before and five after leave "hyphen-ation" only.
        let word = "see hyphenation"
        let wide = try lines(word, 110, ["hyphenation": "auto", "hyphenationMinimum": ["before": 3, "after": 5]])
        #expect(wide.map(\.start) == [0, 10] && wide[0].hyphenated)
        // A word shorter than `word` characters is not hyphenated.
        #expect(try lines("see layout", 62, ["hyphenation": "auto", "hyphenationMinimum": ["word": 7]]).allSatisfy { !$0.hyphenated })
        #expect(try lines("see layout", 62, ["hyphenation": "auto"]).contains { $0.hyphenated })

        // No dictionary, or no language: soft hyphens only, and the result says why.
        for (language, why) in [("xx", "no hyphenation dictionary for language \"xx\""), (nil, "needs the text's language")] {
            var members: [(String, JSONValue)] = [("text", "hyphenation"), ("width", 60), ("font", Self.font),
                                                  ("paragraph", ["hyphenation": "auto"])]
            if let language { members.append(("language", .string(language))) }
            let raw = try client.result("layout", .object(members))
            let result = try #require(LayoutResult(json: raw))
            #expect(result.lines.allSatisfy { !$0.hyphenated })
            #expect(raw["warnings"]?.arrayValue?.contains { $0.stringValue?.contains(why) == true } == true, "\(language ?? "none")")
        }
        // Bad values name their field.
        let bad = try client.call("layout", ["text": "x", "paragraph": ["hyphenation": "sometimes"]])
        #expect(bad["error"]?["data"]?["field"] == "paragraph.hyphenation")
        let low = try client.call("layout", ["text": "x", "paragraph": ["hyphenationMinimum": ["before": 0]]])
        #expect(low["error"]?["data"]?["field"] == "paragraph.hyphenationMinimum.before")
        // The words looked up are counted in stats.
        let counts = try client.result("stats")["caches"]?["hyphenatedWords"]
        #expect((counts?["count"]?.doubleValue ?? 0) > 0 && (counts?["dictionaries"]?.doubleValue ?? 0) >= 1)
    }

    @Test func updatesKeepTheHyphenation() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "The typography conference discussed hyphenation"
        let params: JSONValue = ["text": .string(text), "width": 150, "font": Self.font, "language": "en-US",
                                 "paragraph": ["hyphenation": "auto"], "retain": true]
        let handle = try #require(client.result("layout", params)["handle"]?.stringValue)
        func fresh(_ width: Double, _ hyphenation: String, _ text: String = text) throws -> [LineResult] {
            try #require(LayoutResult(json: client.result("layout", [
                "text": .string(text), "width": .number(width), "font": Self.font, "language": "en-US",
                "paragraph": ["hyphenation": .string(hyphenation)]]))).lines
        }
        func updated(_ params: JSONValue) throws -> [LineResult] {
            let members = [("handle", JSONValue.string(handle))] + (params.objectMembers ?? [])
            return try #require(LayoutResult(json: client.result("update", .object(members)))).lines
        }
        let narrower = try updated(["width": 120])
        #expect(narrower == (try fresh(120, "auto")) && narrower.contains { $0.hyphenated })
        let edited = try updated(["edits": [["start": 0, "end": 3, "text": "A"]]])
        #expect(edited == (try fresh(120, "auto", "A" + text.dropFirst(3))))
        let manual = try updated(["paragraph": ["hyphenation": "manual"]])
        #expect(manual == (try fresh(120, "manual", "A" + text.dropFirst(3))) && !manual.contains { $0.hyphenated })
    }
}
