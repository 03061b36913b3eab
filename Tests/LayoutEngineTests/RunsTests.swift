import TestSupport
import Testing
@testable import LayoutEngine

@Suite struct VisualRunTests {
    func layout(_ text: String, width: Double? = nil, detail: LayoutDetail = .glyphs, wrap: WrapMode = .word,
                family: String = "Noto Sans", direction: ParagraphDirection = .auto) throws -> TextLayout {
        try sharedEngine.layout(LayoutRequest(text: utf16(text), width: width, font: FontDescriptor(family: family, size: 16),
                                              direction: direction, wrap: wrap, detail: detail))
    }

    func texts(_ text: String, _ runs: [LineRun]) -> [String] {
        let units = utf16(text)
        return runs.map { String(decoding: units[$0.start..<$0.end], as: UTF16.self) }
    }

    @Test func mixedDirectionsComeInVisualOrder() throws {
        let text = "abc אבג def"
        let line = try #require(try layout(text).lines.first)
        // The space after the Hebrew word stays in the Hebrew font (spaces never pick a
        // font), so it is a run of its own before "def".
        #expect(texts(text, line.runs) == ["abc ", "אבג", " ", "def"])
        #expect(line.runs.map(\.isRTL) == [false, true, false, false])
        let rtlText = "שלום abc עולם"
        let rtl = try #require(try layout(rtlText).lines.first)
        #expect(rtl.isRTL)
        // Left to right on screen: the last Hebrew word first, the Latin one (level 2) in
        // the middle, the first Hebrew word with its space at the right.
        #expect(texts(rtlText, rtl.runs) == ["עולם", " ", "abc", "שלום "])
        #expect(rtl.runs.map(\.level) == [1, 1, 2, 1])
    }

    @Test func runsTileTheLineLeftToRight() throws {
        let text = "Hello مرحبا 你好 שלום world 😀 done"
        let result = try layout(text, width: 200)
        for line in result.lines where !line.runs.isEmpty {
            for (a, b) in zip(line.runs, line.runs.dropFirst()) {
                #expect(abs(a.x + a.width - b.x) < 1e-9, "runs abut")
            }
            let covered = line.runs.reduce(0) { $0 + ($1.end - $1.start) }
            let units = utf16(text)
            let contentEnd = line.end < units.count && [0x0A, 0x2029].contains(units[line.end - 1]) ? line.end - 1 : line.end
            #expect(covered == contentEnd - line.start, "runs cover the line's text")
            for run in line.runs {
                let advance = run.glyphs.reduce(0) { $0 + $1.advance }
                #expect(abs(advance - run.width) < 1e-3, "glyph advances add up to the run width")
                #expect(run.glyphs.allSatisfy { $0.cluster >= run.start && $0.cluster < run.end })
            }
        }
        let fonts = result.fonts.map(\.family)
        #expect(fonts.contains("Noto Sans") && fonts.contains("Noto Sans Arabic") && fonts.contains("Noto Color Emoji"))
    }

    @Test func withoutDetailNoRuns() throws {
        let result = try layout("abc", detail: .lines)
        #expect(result.lines[0].runs.isEmpty)
        #expect(result.fonts.map(\.family) == ["Noto Sans"], "the primary font is named")
    }

    @Test func unknownFamilySaysWhichFontWasUsed() throws {
        let result = try layout("abc", detail: .lines, family: "Nonexistent Family")
        #expect(result.fonts.map(\.family) == ["Noto Sans"])
        #expect(result.fonts[0].identity.path.hasSuffix("NotoSans-Regular.ttf"))
    }

    @Test func wrapModes() throws {
        let text = "alpha beta gamma"
        #expect(try layout(text, width: 60, detail: .lines, wrap: .word).lines.map(\.start) == [0, 6, 11])
        let char = try layout(text, width: 60, detail: .lines, wrap: .char)
        #expect(char.lines.map(\.start) == [0, 7, 13], "fills each line, breaking inside words")
        #expect(try layout(text, width: 60, detail: .lines, wrap: .none).lines.count == 1)
        #expect(try layout("a\u{2028}b", width: 60, detail: .lines, wrap: .none).lines.map(\.start) == [0, 2])
    }

    @Test func softHyphenShowsAHyphenWhereTheLineBreaks() throws {
        let text = "extra\u{AD}ordinarily"
        let whole = try layout(text, detail: .lines).width
        let left = try layout("extra", detail: .lines).width
        let hyphen = try layout("\u{2010}", detail: .lines).width
        let result = try layout(text, width: (whole + left) / 2)
        #expect(result.lines.map(\.start) == [0, 6])
        #expect(result.lines[0].hyphenated)
        #expect(abs(result.lines[0].width - (left + hyphen)) < 1e-6)
        let glyphs = result.lines[0].runs.flatMap(\.glyphs)
        #expect(glyphs.last?.cluster == 5 && abs((glyphs.last?.advance ?? 0) - hyphen) < 1e-6)
        // Unbroken, the soft hyphen shows nothing.
        let unbroken = try layout(text, detail: .lines)
        #expect(!unbroken.lines[0].hyphenated)
        #expect(abs(unbroken.width - (left + (try layout("ordinarily", detail: .lines).width))) < 1e-6)
    }
}

/// Inter (fonts-inter-variable) is the pinned variable font: weight and variations set its
/// axes.
@Suite struct VariableFontTests {
    func layout(weight: Int, variations: [FontVariation] = []) throws -> TextLayout {
        try sharedEngine.layout(LayoutRequest(
            text: utf16("Hamburgefonstiv"),
            font: FontDescriptor(family: "Inter", size: 16, weight: weight, variations: variations)))
    }

    @Test func weightSetsTheWeightAxis() throws {
        let regular = try layout(weight: 400), bold = try layout(weight: 700)
        #expect(regular.fonts[0].family.hasPrefix("Inter"))
        #expect(regular.fonts[0].identity.path.hasSuffix(".var.ttf"))
        #expect(regular.fonts[0].variations == [FontVariation(tag: "wght", value: 400)])
        #expect(bold.fonts[0].variations == [FontVariation(tag: "wght", value: 700)])
        #expect(bold.width > regular.width + 1, "bold glyphs are wider")
    }

    @Test func explicitAxisValuesWin() throws {
        let light = try layout(weight: 700, variations: [FontVariation(tag: "wght", value: 300)])
        #expect(light.fonts[0].variations == [FontVariation(tag: "wght", value: 300)])
        #expect(light.width < (try layout(weight: 400)).width)
    }
}
