import Foundation
import LayoutProtocol
import Testing

/// Spans, paragraph styles, truncation, measure, insets, exclusions and scale, through the
/// socket.
@Suite(.serialized) struct RichTextTests {
    func result(_ client: Client, _ params: JSONValue, method: String = "layout") throws -> LayoutResult {
        try #require(LayoutResult(json: client.result(method, params)))
    }

    /// Every rect lies inside the box of the line at its y.
    func checkRectsInsideLines(_ r: LayoutResult) {
        for region in r.regions {
            for rect in region.rects {
                let line = r.lines.first { abs($0.y - rect.y) < 0.01 }
                #expect(line != nil, "\(region.kind) rect at y \(rect.y) has no line")
                if let line {
                    #expect(rect.height == line.height)
                    #expect(rect.x >= line.x - 0.01 && rect.x + rect.width <= line.x + line.width + 0.01 || region.kind == "truncation",
                            "\(region.kind) rect \(rect) inside line \(line.x)…\(line.x + line.width)")
                }
            }
        }
    }

    @Test func mixedScriptsWithSpans() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        // "Hi @dana — שלום עולם, see 你好 at https://x.io": a mention (data), a link that wraps,
        // a larger bold Hebrew span, a colored Chinese span.
        let text = "Hi @dana — שלום עולם, see 你好 at https://x.io/a/long/path"
        let units = Array(text.utf16)
        func offset(_ s: String) -> Int { units.count - Array(text.components(separatedBy: s).dropFirst().joined(separator: s).utf16).count - Array(s.utf16).count }
        let mention = offset("@dana"), hebrew = offset("שלום"), chinese = offset("你好"), link = offset("https")
        let r = try result(client, [
            "text": .string(text), "width": 160, "detail": "runs",
            "spans": [
                ["start": .number(Double(mention)), "end": .number(Double(mention + 5)), "data": ["userId": 7], "color": "#1a73e8"],
                ["start": .number(Double(hebrew)), "end": .number(Double(hebrew + 10)), "font": ["size": 22, "weight": 700]],
                ["start": .number(Double(chinese)), "end": .number(Double(chinese + 2)), "color": "#0a0"],
                ["start": .number(Double(link)), "end": .number(Double(units.count)), "link": "https://x.io/a/long/path", "underline": true],
            ]])
        let data = try #require(r.regions.first { $0.kind == "data" })
        #expect(data.value == ["userId": 7] && data.start == mention && data.end == mention + 5 && data.rects.count == 1)
        let linkRegion = try #require(r.regions.first { $0.kind == "link" })
        #expect(linkRegion.value == "https://x.io/a/long/path")
        #expect(linkRegion.rects.count >= 2, "the link wraps: one rect per line fragment")
        checkRectsInsideLines(r)
        // Runs split where styles change; styles say what each run looks like.
        let styles = try #require(r.styles)
        let runs = r.lines.flatMap { $0.runs ?? [] }
        let chineseRun = try #require(runs.first { $0.start <= chinese && $0.end > chinese })
        #expect(styles[chineseRun.style]["color"] == "#00aa00")
        let hebrewRun = try #require(runs.first { $0.start <= hebrew && $0.end > hebrew })
        #expect(hebrewRun.direction == "rtl" && r.fonts[hebrewRun.font].size == 22)
        #expect(r.fonts[hebrewRun.font].file.hasSuffix("NotoSansHebrew-Bold.ttf"))
        // The larger span makes its line taller than a plain one.
        let hebrewLine = try #require(r.lines.first { $0.start <= hebrew && $0.end > hebrew })
        #expect(hebrewLine.height > r.lines.map(\.height).min()! + 5)
    }

    @Test func colorDoesNotSplitShapingButFontsDo() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        // "AV" kerns. A color change between A and V keeps the pair kerned (one shaping run);
        // a letter-spacing or font change shapes the pieces apart.
        let plain = try result(client, ["text": "AVAV", "detail": "runs"])
        let colored = try result(client, ["text": "AVAV", "detail": "runs", "spans": [["start": 1, "end": 2, "color": "#f00"]]])
        #expect(colored.width == plain.width, "kerning across a color change survives")
        #expect(colored.lines[0].runs?.count == 3, "but the client gets a run per style to color")
        let unkerned = try result(client, ["text": "AVAV", "font": ["features": ["kern": false]]])
        let split = try result(client, ["text": "AVAV", "spans": [["start": 1, "end": 2, "font": ["weight": 400, "features": ["kern": true]], "letterSpacing": 0.001]]])
        #expect(split.width > plain.width && unkerned.width > plain.width, "a shaping change breaks the kerning pair")
    }

    @Test func spanEdgesSnapOutwardAndLaterSpansWin() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        // A span ending inside "é" (e + combining acute) covers the whole cluster; a later span
        // overrides the color but keeps the earlier link.
        let r = try result(client, [
            "text": "cafe\u{301} bar", "detail": "runs",
            "spans": [["start": 0, "end": 4, "link": "L", "color": "#111111"], ["start": 2, "end": 9, "color": "#222222"]]])
        let link = try #require(r.regions.first { $0.kind == "link" })
        #expect(link.start == 0 && link.end == 5, "the end moved past the combining mark")
        let styles = try #require(r.styles)
        let runs = try #require(r.lines.first?.runs)
        // "ca" (link, first color) | "fé" (link, second color) | " bar" (second color only).
        #expect(runs.map { styles[$0.style]["color"] } == ["#111111", "#222222", "#222222"].map { JSONValue.string($0) })
        #expect(runs.map { styles[$0.style]["link"] } == ["L", "L", nil])
        let overlap = try #require(runs.first { $0.start == 2 })
        #expect(styles[overlap.style]["color"] == "#222222" && styles[overlap.style]["link"] == "L")
    }

    @Test func rtlParagraphTruncatedAtTheTail() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "مرحبا بالعالم هذا نص طويل جدا للاختبار في تطبيق المحادثة"
        let r = try result(client, ["text": .string(text), "width": 150,
                                    "paragraph": ["maxLines": 2, "truncation": ["mode": "tail", "token": "… المزيد"]]])
        #expect(r.truncated)
        #expect(r.lines.count == 2)
        let visible = try #require(r.visible)
        #expect(visible.count == 1 && visible[0].start == 0 && visible[0].end < text.utf16.count)
        let token = try #require(r.regions.first { $0.kind == "truncation" })
        #expect(token.start == visible[0].end && token.end == text.utf16.count, "the token stands for the hidden text")
        #expect(token.value == "… المزيد")
        let last = r.lines[1]
        let rect = try #require(token.rects.first)
        #expect(abs(rect.x - last.x) < 0.01, "in an RTL paragraph the token sits at the visual end: the left")
        #expect(abs(last.x + last.width - 150) < 0.01 && last.width <= 150.01)
    }

    @Test func tokenWiderThanTheWidthWins() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let r = try result(client, ["text": "one two three four five six", "width": 40,
                                    "paragraph": ["maxLines": 1, "truncation": ["token": "… read the rest of it"]]])
        #expect(r.truncated && r.lines.count == 1)
        #expect(r.visible == [RangeResult(start: 0, end: 0)], "the text before the token goes")
        let token = try #require(r.regions.first { $0.kind == "truncation" })
        #expect(token.start == 0 && token.rects[0].width > 40)
    }

    @Test func headMiddleAndClip() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "/home/user/projects/layoutd/Sources/LayoutEngine/TextLayoutEngine.swift"
        let n = text.utf16.count
        func truncated(_ mode: String) throws -> LayoutResult {
            try result(client, ["text": .string(text), "width": 200, "paragraph": ["maxLines": 1, "truncation": ["mode": .string(mode)]]])
        }
        let head = try truncated("head")
        #expect(head.truncated && head.lines.count == 1)
        #expect(head.visible?.first?.end == n && (head.visible?.first?.start ?? 0) > 0, "head keeps the end")
        #expect(head.lines[0].width <= 200.01)
        let middle = try truncated("middle")
        let kept = try #require(middle.visible)
        #expect(kept.count == 2 && kept[0].start == 0 && kept[1].end == n && kept[0].end < kept[1].start)
        #expect(middle.lines[0].width <= 200.01 && middle.lines[0].width > 150)
        let clip = try truncated("clip")
        #expect(clip.truncated && clip.regions.allSatisfy { $0.kind != "truncation" }, "clip shows no token")
        // maxLines 0 means no limit.
        let all = try result(client, ["text": .string(text), "width": 200, "paragraph": ["maxLines": 0]])
        #expect(!all.truncated && all.lines.count > 1 && all.visible == nil)
    }

    @Test func justifyStretchesSpacesButNotLastOrSingleWordLines() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let r = try result(client, ["text": "one two three four five six seven eight nine ten", "width": 120,
                                    "paragraph": ["align": "justify"]])
        for line in r.lines.dropLast() { #expect(abs(line.width - 120) < 0.01, "justified to the width") }
        #expect(r.lines.last!.width < 120 && r.lines.last!.x == 0, "the last line is set at the start")
        let single = try result(client, ["text": "incomprehensibilities are long words", "width": 150,
                                         "paragraph": ["align": "justify"]])
        #expect(single.lines[0].width < 150 && single.lines[0].x == 0, "a single-word line is not stretched")
        let centered = try result(client, ["text": "centered", "width": 200, "paragraph": ["align": "center"]])
        #expect(abs(centered.lines[0].x - (200 - centered.lines[0].width) / 2) < 0.01)
        let ended = try result(client, ["text": "at the end", "width": 200, "paragraph": ["align": "end"]])
        #expect(abs(ended.lines[0].x + ended.lines[0].width - 200) < 0.01)
    }

    @Test func tabStopsLineUpColumns() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        // Item (left) | quantity, right-aligned at 140 | price, decimal point at 220.
        let rows = ["Apples\t3\t1.25", "Pears\t12\t10.5", "Kiwis\t100\t0.75"]
        let text = rows.joined(separator: "\n")
        var spans: [JSONValue] = []
        var offset = 0
        for row in rows {
            let cells = row.components(separatedBy: "\t")
            let qty = offset + cells[0].utf16.count + 1
            let price = qty + cells[1].utf16.count + 1
            spans.append(["start": .number(Double(qty)), "end": .number(Double(qty + cells[1].utf16.count)), "data": "qty"])
            let point = price + cells[2].utf16.count - cells[2].components(separatedBy: ".")[1].utf16.count - 1
            spans.append(["start": .number(Double(point)), "end": .number(Double(point + 1)), "data": "point"])
            offset += row.utf16.count + 1
        }
        let r = try result(client, ["text": .string(text), "spans": .array(spans),
                                    "paragraph": ["tabStops": [["location": 140, "alignment": "right"],
                                                               ["location": 220, "alignment": "decimal"]]]])
        let quantities = r.regions.filter { $0.value == "qty" }.map { $0.rects[0] }
        let points = r.regions.filter { $0.value == "point" }.map { $0.rects[0] }
        #expect(quantities.count == 3 && points.count == 3)
        for q in quantities { #expect(abs(q.x + q.width - 140) < 0.01, "quantities end at the right tab stop") }
        for p in points { #expect(abs(p.x - 220) < 0.01, "decimal points sit on the decimal tab stop") }
    }

    @Test func exclusionAtTheTopLeftCornerAndInsets() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = String(repeating: "flow around the picture ", count: 8)
        let r = try result(client, ["text": .string(text), "width": 300,
                                    "insets": ["top": 10, "left": 12, "bottom": 8, "right": 12],
                                    "exclusions": [["x": 0, "y": 0, "width": 80, "height": 50]]])
        #expect(r.lines[0].y == 10, "lines start below the top inset")
        for line in r.lines {
            if line.y < 50 {
                #expect(line.x >= 80, "lines beside the exclusion start right of it")
            } else {
                #expect(line.x == 12, "lines below it start at the left inset")
            }
            #expect(line.x + line.width <= 288.01, "lines stay inside the right inset")
        }
        #expect(r.lines.contains { $0.y < 50 } && r.lines.contains { $0.y >= 50 })
        #expect(abs(r.height - (r.lines.last!.y + r.lines.last!.height + 8)) < 0.01)
        // An exclusion across the whole width pushes the text below it.
        let blocked = try result(client, ["text": "below", "width": 300, "exclusions": [["x": 0, "y": 0, "width": 300, "height": 40]]])
        #expect(blocked.lines[0].y == 40)
        // Text continues on both sides of an exclusion in the middle.
        let both = try result(client, ["text": .string(text), "width": 300, "exclusions": [["x": 120, "y": 0, "width": 60, "height": 30]]])
        let firstBand = both.lines.filter { $0.y == 0 }
        #expect(firstBand.count == 2 && firstBand[0].x + firstBand[0].width <= 120.01 && firstBand[1].x >= 180)
    }

    @Test func spacingLineHeightIndentsAndScale() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "first paragraph wraps over lines\nsecond one"
        let plain = try result(client, ["text": .string(text), "width": 120])
        let spaced = try result(client, ["text": .string(text), "width": 120,
                                         "paragraph": ["lineSpacing": 4, "paragraphSpacing": 10, "paragraphSpacingBefore": 3,
                                                       "headIndent": 10, "firstLineIndent": 15, "tailIndent": 5]])
        #expect(spaced.lines[0].x == 25 && spaced.lines[1].x == 10, "first line indent adds to the head indent")
        #expect(spaced.lines.allSatisfy { $0.x + $0.width <= 115.01 })
        let gaps = zip(spaced.lines, spaced.lines.dropFirst()).map { $1.y - ($0.y + $0.height) }
        let paragraphBreak = spaced.lines.firstIndex { $0.start == 33 }! - 1
        for (i, gap) in gaps.enumerated() {
            #expect(abs(gap - (i == paragraphBreak ? 4 + 10 + 3 : 4)) < 0.01, "gap \(i): \(gap)")
        }
        let tall = try result(client, ["text": "x", "paragraph": ["lineHeight": ["multiple": 2]]])
        #expect(abs(tall.lines[0].height - 2 * plain.lines[0].height) < 0.01)
        #expect(abs(tall.lines[0].baseline - (plain.lines[0].baseline + plain.lines[0].height / 2)) < 0.01, "extra height split evenly")
        let clamped = try result(client, ["text": "x", "paragraph": ["lineHeight": ["minimum": 40, "maximum": 50]]])
        #expect(clamped.lines[0].height == 40)
        // Scale doubles every size: fonts, spacing, indents; not the width.
        let scaled = try result(client, ["text": "abc", "scale": 2, "paragraph": ["headIndent": 10]])
        let unscaled = try result(client, ["text": "abc", "paragraph": ["headIndent": 10]])
        #expect(abs(scaled.lines[0].width - 2 * unscaled.lines[0].width) < 0.01 && scaled.lines[0].x == 20)
        #expect(abs(scaled.lines[0].height - 2 * unscaled.lines[0].height) < 0.01)
    }

    @Test func measureAgreesWithLayout() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let params: JSONValue = ["text": "measure me at a narrow width please", "width": 90, "insets": ["top": 4, "bottom": 4],
                                 "paragraph": ["maxLines": 3]]
        let layout = try result(client, params)
        let measure = try client.result("measure", params)
        #expect(measure["size"]?["width"]?.doubleValue == layout.width)
        #expect(measure["size"]?["height"]?.doubleValue == layout.height)
        #expect(measure["lineCount"]?.intValue == layout.lines.count)
        #expect(measure["truncated"]?.boolValue == layout.truncated && layout.truncated)
        #expect(measure["lines"] == nil && measure["regions"] == nil)
    }

    @Test func badRichTextParamsNameTheField() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let cases: [(JSONValue, String)] = [
            (["text": "abc", "spans": [["start": 2, "end": 1]]], "spans[0].end"),
            (["text": "abc", "spans": [["start": 0, "end": 9]]], "spans[0].end"),
            (["text": "abc", "spans": [["end": 1]]], "spans[0].start"),
            (["text": "abc", "spans": [["start": 0, "end": 1, "color": "red"]]], "spans[0].color"),
            (["text": "abc", "spans": [["start": 0, "end": 1, "underline": "wavy"]]], "spans[0].underline"),
            (["text": "abc", "spans": [["start": 0, "end": 1, "font": ["size": -2]]]], "spans[0].font.size"),
            (["text": "abc", "spans": "all"], "spans"),
            (["text": "abc", "paragraph": ["align": "middle"]], "paragraph.align"),
            (["text": "abc", "paragraph": ["maxLines": -1]], "paragraph.maxLines"),
            (["text": "abc", "paragraph": ["truncation": ["mode": "sideways"]]], "paragraph.truncation.mode"),
            (["text": "abc", "paragraph": ["lineSpacing": -3]], "paragraph.lineSpacing"),
            (["text": "abc", "paragraph": ["tabStops": [["alignment": "left"]]]], "paragraph.tabStops[0].location"),
            (["text": "abc", "insets": ["left": -1]], "insets.left"),
            (["text": "abc", "exclusions": [["x": 0, "y": 0, "width": -5, "height": 5]]], "exclusions[0].width"),
            (["text": "abc", "scale": 0], "scale"),
            (["text": "abc", "spans": .array(Array(repeating: ["start": 0, "end": 3, "color": "#000"], count: 257))], "spans"),
        ]
        for (params, field) in cases {
            let reply = try client.call("layout", params)
            #expect(reply["error"]?["code"] == -32602, "\(JSONWriter.string(params))")
            #expect(reply["error"]?["data"]?["field"] == .string(field), "\(JSONWriter.string(reply))")
        }
        #expect(try client.result("ping")["pong"] == true)
    }
}

/// Inline attachments (run delegates) through the socket.
@Suite(.serialized) struct AttachmentTests {
    @Test func attachmentsAreObjectsOnTheBaseline() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "Nice :party: work \u{FFFC}\u{FFFC} done"
        let object: JSONValue = ["width": 40, "ascent": 30, "descent": 2]
        let raw = try client.result("layout", [
            "text": .string(text), "detail": "runs",
            "spans": [["start": 5, "end": 12, "attachment": ["width": 20, "ascent": 18, "descent": 4, "value": "party.png"]],
                      ["start": 18, "end": 19, "attachment": object], ["start": 19, "end": 20, "attachment": object]]])
        let r = try #require(LayoutResult(json: raw))
        let line = r.lines[0]
        let runs = try #require(line.runs)
        // The shortcode is one object 20 wide; two neighbouring objects of one style stay two.
        let shortcode = try #require(runs.first { $0.start == 5 })
        #expect(shortcode.end == 12 && shortcode.width == 20 && shortcode.glyphs == nil)
        #expect(runs.filter { $0.width == 40 }.count == 2)
        // The tallest object sets the line's ascent.
        #expect(line.ascent == 30)
        let regions = r.regions.filter { $0.kind == "attachment" }
        #expect(regions.count == 3)
        let party = try #require(regions.first)
        #expect(party.value == "party.png")
        let box = party.rects[0]
        #expect(box.width == 20 && box.height == 22 && abs(box.y - (line.baseline - 18)) < 0.01, "the object's own box")
        #expect(regions[1].value == nil)
        // The object is one cluster: a point on it hits its start or end, no caret inside it.
        let spans: JSONValue = [["start": 5, "end": 12, "attachment": ["width": 20, "ascent": 18, "descent": 4]]]
        let left = try client.result("hitTest", ["text": .string(text), "spans": spans, "x": .number(shortcode.x + 4), "y": 5])
        let right = try client.result("hitTest", ["text": .string(text), "spans": spans, "x": .number(shortcode.x + 16), "y": 5])
        #expect(left["index"] == 5 && right["index"] == 12 && left["character"] == 5)
        let inside = try client.result("caret", ["text": .string(text), "spans": spans, "index": 8])
        #expect(inside["x"]?.doubleValue == shortcode.x, "a caret inside the object goes to its start")
        let narrow = try #require(LayoutResult(json: client.result("layout", [
            "text": "ab:wide-object:cd", "width": 30,
            "spans": [["start": 2, "end": 15, "attachment": ["width": 100, "ascent": 10, "descent": 2]]]])))
        #expect(narrow.lines.contains { $0.start == 2 && $0.end == 15 }, "an object wider than the line stands alone, whole")
        let bad = try client.call("layout", ["text": "x", "spans": [["start": 0, "end": 1, "attachment": ["ascent": 3]]]])
        #expect(bad["error"]?["data"]?["field"] == "spans[0].attachment.width")
    }
}
