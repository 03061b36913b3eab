import LayoutProtocol
import Testing

/// A retained layout laid out again at new line params from its kept shaping (`update` with
/// `width`, `paragraph`, `insets`, `exclusions`), `measure` at several widths, and balanced
/// wrapping — each checked against fresh layouts through the real daemon.
@Suite struct RelayoutTests {
    static let font: JSONValue = ["family": "Noto Sans", "size": 16]

    /// A layout result without what differs between an update and a fresh layout of the same
    /// text and params: the handle and the diff.
    func comparable(_ result: JSONValue) -> JSONValue {
        guard case .object(let members) = result else { return result }
        return .object(members.filter { $0.0 != "handle" && $0.0 != "diff" })
    }

    /// `base` with `change`'s members, `paragraph` merged member by member (as `update` does).
    func merged(_ base: [(String, JSONValue)], _ change: [(String, JSONValue)]) -> [(String, JSONValue)] {
        var result = base
        for (key, value) in change {
            var value = value
            if key == "paragraph", case .object(let given) = value,
               case .object(let old)? = result.first(where: { $0.0 == key })?.1 {
                value = .object(merged(old, given))
            }
            if let i = result.firstIndex(where: { $0.0 == key }) { result[i].1 = value } else { result.append((key, value)) }
        }
        return result
    }

    @Test func anUpdateOfWidthEqualsAFreshLayoutForEveryCorpusParagraph() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let corpus = try loadCorpus()
        #expect(corpus.count >= 190)
        for paragraph in corpus {
            let base: [(String, JSONValue)] = [("text", .string(paragraph.text)), ("font", Self.font), ("width", 360)]
            let handle = try #require(client.result("layout", .object(base + [("retain", true)]))["handle"])
            for width in [120.0, 250.0, 555.5] {
                let updated = try client.result("update", ["handle": handle, "width": .number(width)])
                let fresh = try client.result("layout", .object(merged(base, [("width", .number(width)), ("retain", true)])))
                #expect(comparable(updated) == comparable(fresh), "\(paragraph.id) at \(width)")
                #expect(updated["diff"]?["reshapedParagraphs"] == 0, "\(paragraph.id) at \(width)")
            }
            _ = try client.result("release", ["handle": handle])
        }
    }

    @Test func everyLineParamChangedByUpdateEqualsAFreshLayout() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let corpus = try loadCorpus()
        let text = corpus.prefix(12).map(\.text).joined(separator: "\n") + "\nTabs\tand\tstops, a soft\u{AD}hyphen.\n"
        var params: [(String, JSONValue)] = [("text", .string(text)), ("font", Self.font), ("width", 300),
                                             ("detail", "glyphs"),
                                             ("spans", [["start": 3, "end": 40, "link": "https://example.org"]])]
        let handle = try #require(client.result("layout", .object(params + [("retain", true)]))["handle"])
        let changes: [[(String, JSONValue)]] = [
            [("width", 210)], [("paragraph", ["maxLines": 3])], [("paragraph", ["maxLines": 0])],
            [("paragraph", ["maxLines": 2, "truncation": ["mode": "middle", "token": "… more"]])],
            [("paragraph", ["truncation": ["mode": "head"]])], [("paragraph", ["truncation": ["mode": "clip"]])],
            [("paragraph", ["maxLines": 0, "align": "center"])], [("paragraph", ["align": "justify"])],
            [("paragraph", ["lineSpacing": 4, "paragraphSpacing": 6, "paragraphSpacingBefore": 2])],
            [("paragraph", ["lineHeight": ["multiple": 1.4, "minimum": 10]])],
            [("paragraph", ["firstLineIndent": 20, "headIndent": 10, "tailIndent": 15])],
            [("paragraph", ["tabStops": [["location": 80], ["location": 160, "alignment": "right"]],
                            "defaultTabInterval": 40])],
            [("insets", ["top": 5, "left": 12, "right": 7, "bottom": 3])],
            [("exclusions", [["x": 0, "y": 30, "width": 90, "height": 60]])],
            [("paragraph", ["wrapStyle": "balance"])], [("width", .null)], [("width", 333)],
        ]
        for change in changes {
            params = merged(params, change)
            let updated = try client.result("update", .object([("handle", handle)] + change))
            let fresh = try client.result("layout", .object(params + [("retain", true)]))
            #expect(comparable(updated) == comparable(fresh), "after \(JSONWriter.string(.object(change)))")
            #expect(updated["diff"]?["reshapedParagraphs"] == 0, "after \(JSONWriter.string(.object(change)))")
        }
        // A new font size needs shaping: every paragraph says so.
        let resized = try client.result("update", ["handle": handle, "font": ["family": "Noto Sans", "size": 18]])
        #expect(resized["diff"]?["reshapedParagraphs"] == .number(Double(text.split(separator: "\n", omittingEmptySubsequences: false).count)))
    }

    @Test func editsAndNewParamsTogetherEqualAFreshLayoutOfTheEditedText() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "First paragraph, which wraps at this width.\nSecond one stays.\nThird is here too."
        let handle = try #require(client.result("layout", ["text": .string(text), "font": Self.font, "width": 200,
                                                           "retain": true])["handle"])
        let updated = try client.result("update", ["handle": handle, "width": 150, "paragraph": ["maxLines": 4],
                                                   "edits": [["start": 0, "end": 5, "text": "1st"]]])
        let edited = "1st" + text.dropFirst(5)
        let fresh = try client.result("layout", ["text": .string(String(edited)), "font": Self.font, "width": 150,
                                                 "paragraph": ["maxLines": 4], "retain": true])
        #expect(comparable(updated) == comparable(fresh))
        // Only the edited paragraph was shaped again.
        #expect(updated["diff"]?["reshapedParagraphs"] == 1)
    }

    @Test func updateParamsAreChecked() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let handle = try #require(client.result("layout", ["text": "Hello there", "retain": true])["handle"])
        let cases: [(JSONValue, String)] = [
            (["handle": handle], "edits"),
            (["handle": handle, "width": -3], "width"),
            (["handle": handle, "paragraph": ["wrapStyle": "pretty-please"]], "paragraph.wrapStyle"),
            (["handle": handle, "exclusions": "none"], "exclusions"),
        ]
        for (params, field) in cases {
            let answer = try client.call("update", params)
            #expect(answer["error"]?["code"] == -32602, "\(field)")
            #expect(answer["error"]?["data"]?["field"] == .string(field), "\(field): \(JSONWriter.string(answer))")
        }
    }

    @Test func measureAtSeveralWidthsEqualsOneMeasureEach() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let widths: [Double] = [80, 160, 250, 333.5, 600]
        for paragraph in try loadCorpus() {
            let measures = try client.result("measure", ["text": .string(paragraph.text), "font": Self.font,
                                                         "widths": .array(widths.map { .number($0) })])["measures"]
            let list = try #require(measures?.arrayValue)
            #expect(list.count == widths.count)
            for (i, width) in widths.enumerated() where i < list.count {
                var one = try client.result("measure", ["text": .string(paragraph.text), "font": Self.font,
                                                        "width": .number(width)])
                if case .object(let members) = one { one = .object(members.filter { $0.0 != "fontFingerprint" }) }
                #expect(list[i] == one, "\(paragraph.id) at \(width)")
            }
        }
        for (bad, field) in [(["text": "a", "width": 100, "widths": [100]] as JSONValue, "widths"),
                             (["text": "a", "widths": []], "widths"),
                             (["text": "a", "widths": .array((0...64).map { _ in 100 })], "widths"),
                             (["text": "a", "widths": [100, -1]], "widths[1]")] {
            let answer = try client.call("measure", bad)
            #expect(answer["error"]?["data"]?["field"] == .string(field))
        }
    }

    @Test func balancedLinesAreAsManyAsGreedyOnesAndNoWider() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        var narrower = 0
        for paragraph in try loadCorpus() {
            for width in [140.0, 280.0, 420.0] {
                let params: [(String, JSONValue)] = [("text", .string(paragraph.text)), ("font", Self.font),
                                                     ("width", .number(width))]
                let greedy = try #require(LayoutResult(json: client.result("layout", .object(params))))
                let balanced = try #require(LayoutResult(json: client.result(
                    "layout", .object(params + [("paragraph", ["wrapStyle": "balance"])]))))
                let label = "\(paragraph.id) at \(width)"
                #expect(balanced.lines.count == greedy.lines.count, "\(label)")
                let widest = { (r: LayoutResult) in r.lines.map(\.width).max() ?? 0 }
                #expect(widest(balanced) <= widest(greedy) + 1e-9, "\(label)")
                #expect(balanced.lines.first?.start == 0 && balanced.lines.last?.end == greedy.lines.last?.end, "\(label)")
                #expect(zip(balanced.lines, balanced.lines.dropFirst()).allSatisfy { $0.end == $1.start }, "\(label)")
                if widest(balanced) < widest(greedy) - 1 { narrower += 1 }
            }
        }
        // Balancing does something: most multi-line paragraphs get narrower.
        #expect(narrower > 300)
    }
}
