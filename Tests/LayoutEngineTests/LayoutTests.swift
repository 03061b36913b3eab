import TestSupport
import Testing
@testable import LayoutEngine

@Suite struct FontFallbackTests {
    func faceFile(for text: String, family: String = "Noto Sans") throws -> String {
        let list = try sharedEngine.fonts.fallbackList(for: FontDescriptor(family: family), language: "")
        let scalars = text.unicodeScalars.map(\.value)
        let index = list.candidate(forCluster: scalars)
        return list.identities[index].path.split(separator: "/").last.map(String.init) ?? ""
    }

    @Test func requestedFamilyComesFirst() throws {
        #expect(try faceFile(for: "A") == "NotoSans-Regular.ttf")
        #expect(try faceFile(for: "A", family: "DejaVu Serif") == "DejaVuSerif.ttf")
    }

    @Test func unknownFamilyFallsBackToSansSerif() throws {
        #expect(try faceFile(for: "A", family: "No Such Family 12345") == "NotoSans-Regular.ttf")
    }

    @Test func charactersTheFontLacksGoToTheNextFontThatHasThem() throws {
        #expect(try faceFile(for: "م") == "NotoSansArabic-Regular.ttf")
        #expect(try faceFile(for: "ש") == "NotoSansHebrew-Regular.ttf")
        #expect(try faceFile(for: "क") == "NotoSansDevanagari-Regular.ttf")
        #expect(try faceFile(for: "ก") == "NotoSansThai-Regular.ttf")
        #expect(try faceFile(for: "你") == "wqy-microhei.ttc")
        #expect(try faceFile(for: "😀") == "NotoColorEmoji.ttf")
    }

    @Test func aClusterIsCoveredWhole() throws {
        // e + combining acute: Noto Sans has both.
        #expect(try faceFile(for: "e\u{301}") == "NotoSans-Regular.ttf")
        // A ZWJ emoji sequence needs no glyph for the joiner itself.
        #expect(try faceFile(for: "👩\u{200D}💻") == "NotoColorEmoji.ttf")
    }
}

@Suite struct LayoutTests {
    func layout(_ text: String, width: Double? = nil, size: Double = 16, direction: ParagraphDirection = .auto) throws -> TextLayout {
        try sharedEngine.layout(LayoutRequest(text: utf16(text), width: width,
                                              font: FontDescriptor(family: "Noto Sans", size: size), direction: direction))
    }

    /// The contract every layout keeps.
    func checkContract(_ result: TextLayout, text: String, width: Double?) {
        let n = text.utf16.count
        #expect(result.lines.first?.start == 0)
        #expect(result.lines.last?.end == n)
        for (a, b) in zip(result.lines, result.lines.dropFirst()) {
            #expect(a.end == b.start, "lines must be contiguous")
            #expect(abs(b.y - (a.y + a.height)) < 1e-9, "lines must stack")
        }
        for line in result.lines {
            #expect(line.baseline > line.y && line.baseline < line.y + line.height)
            if let width { #expect(line.x >= -1e-9 && line.x + line.width <= width + 1e-6 || line.end - line.start <= 2) }
        }
    }

    @Test func unwrappedTextIsOneLine() throws {
        let r = try layout("Hello, world")
        #expect(r.lines.count == 1)
        #expect(r.lines[0].width > 50 && r.lines[0].width < 150)
        #expect(r.width == r.lines[0].width)
        // Noto Sans: ascender 1069, descender 293 per 1000 units.
        #expect(abs(r.lines[0].ascent - 16 * 1.069) < 1e-9)
        #expect(abs(r.lines[0].descent - 16 * 0.293) < 1e-9)
        #expect(abs(r.height - 16 * 1.362) < 1e-9)
    }

    @Test func widthWrapsAtWords() throws {
        let text = "The quick brown fox jumps over the lazy dog"
        let r = try layout(text, width: 100)
        #expect(r.lines.count > 2)
        checkContract(r, text: text, width: 100)
        let units = utf16(text)
        for line in r.lines.dropLast() {
            #expect(units[line.end - 1] == 0x20, "each line but the last ends after a space")
        }
    }

    @Test func advancesScaleWithSize() throws {
        let small = try layout("Hello", size: 10), large = try layout("Hello", size: 20)
        #expect(abs(large.width - 2 * small.width) < 1e-9)
    }

    @Test func newlinesEndParagraphs() throws {
        let r = try layout("one\ntwo\u{2029}three\n")
        #expect(r.lines.map { [$0.start, $0.end] } == [[0, 4], [4, 8], [8, 14], [14, 14]])
        #expect(r.lines[3].height > 0, "the empty last line still has the font's height")
    }

    @Test func emptyTextHasOneLine() throws {
        let r = try layout("", width: 100)
        #expect(r.lines.count == 1)
        #expect(r.lines[0].start == 0 && r.lines[0].end == 0)
        #expect(r.height > 0 && r.width == 0)
    }

    @Test func overlongWordBreaksBetweenGraphemes() throws {
        let text = String(repeating: "e\u{301}", count: 40)   // no break opportunity at all
        let r = try layout(text, width: 50)
        #expect(r.lines.count > 3)
        checkContract(r, text: text, width: 50)
        for line in r.lines { #expect(line.start % 2 == 0, "never between e and its accent") }
    }

    @Test func zeroWidthPutsOneClusterPerLine() throws {
        let r = try layout("abc", width: 0)
        #expect(r.lines.map { [$0.start, $0.end] } == [[0, 1], [1, 2], [2, 3]])
    }

    @Test func rightToLeftParagraphsAlignRight() throws {
        let text = "مرحبا بالعالم"
        let r = try layout(text, width: 300)
        #expect(r.lines.count == 1)
        #expect(abs(r.lines[0].x + r.lines[0].width - 300) < 1e-9)
        let ltr = try layout(text, width: 300, direction: .ltr)
        #expect(ltr.lines[0].x == 0)
    }

    @Test func fallbackFontsRaiseTheLine() throws {
        let latin = try layout("abc"), mixed = try layout("abc 你好")
        #expect(mixed.lines[0].ascent >= latin.lines[0].ascent)
        #expect(mixed.lines[0].width > latin.lines[0].width)
    }

    @Test func arabicIsShapedNotJustMapped() throws {
        // Joined Arabic is narrower than its isolated forms laid side by side.
        let joined = try layout("سلام").width
        let isolated = try ["س", "ل", "ا", "م"].map { try layout($0).width }.reduce(0, +)
        #expect(joined < isolated)
    }

    @Test func linearInTextLength() throws {
        // 200k units of words: must finish (a quadratic breaker would not in test time), with
        // every line within the width.
        let text = String(repeating: "lorem ipsum dolor sit amet ", count: 8000)
        let r = try layout(text, width: 400)
        checkContract(r, text: text, width: 400)
    }
}

@Suite struct HostileTextTests {
    @Test func thousandsOfMarksOnOneBaseStayOneCluster() throws {
        // Shaped in pieces (whole, HarfBuzz takes quadratic time), still one unbreakable cluster.
        let text = "a" + String(repeating: "\u{301}", count: 20_000) + " b"
        let r = try sharedEngine.layout(LayoutRequest(text: utf16(text), width: 5))
        #expect(r.lines.map(\.start) == [0, 20_002])
        #expect(r.lines.last?.end == text.utf16.count)
    }

    @Test func marksNoFontHasStillLayOut() throws {
        let text = "a" + String(repeating: "\u{1E8D0}", count: 5_000)
        let r = try sharedEngine.layout(LayoutRequest(text: utf16(text), width: 100))
        #expect(r.lines.count == 1 && r.lines[0].end == text.utf16.count)
    }
}

@Suite struct LayoutDetailTests {
    /// Details order by how much they ask for (the server adds runs and glyphs past `lines`).
    @Test func detailsOrderByWhatTheyAskFor() {
        #expect(LayoutDetail.lines < .runs && LayoutDetail.runs < .glyphs && LayoutDetail.lines < .glyphs)
        #expect(!(LayoutDetail.glyphs < .runs) && !(LayoutDetail.runs < .lines) && !(LayoutDetail.runs < .runs))
        #expect(LayoutDetail.allCases.sorted() == [.lines, .runs, .glyphs])
    }
}
