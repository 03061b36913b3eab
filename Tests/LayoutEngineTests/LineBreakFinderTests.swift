import TestSupport
import Testing
@testable import LayoutEngine

/// Line-break opportunities found on demand near each line's end (`LineBreakFinder`,
/// `LineBreaks.onDemand`) against all of them found ahead of time by ICU from the text's
/// start: the same opportunity for every line start and end asked about, and the same lines
/// in every script of the corpus and in random text made to hit the rules' corners.
@Suite("Line breaks found on demand")
struct LineBreakFinderTests {
    /// Characters of many line-break classes: letters and digits of several scripts,
    /// ideographs and kana, Thai (found by ICU's dictionary), spaces of several kinds,
    /// punctuation that opens, closes, quotes, joins and separates, combining marks, ZWJ and
    /// ZWSP, hard breaks, emoji and regional indicators (surrogate pairs), a soft hyphen.
    static let alphabet: [String] = [
        "a", "b", "Z", "é", "ß", "5", "0", "ж", "λ", "א", "ב", "ا", "ب", "क", "ि", "्", "ক", "த", "한", "국",
        "中", "文", "日", "本", "か", "カ", "ァ", "ー", "々", "、", "。", "「", "」", "ก", "ข", "ั", "่", "ไ",
        " ", " ", " ", " ", "\u{A0}", "\u{3000}", "\u{2009}",
        ",", ".", ":", ";", "-", "–", "—", "(", ")", "[", "]", "{", "\"", "'", "«", "»", "“", "”", "‘", "!", "?",
        "/", "%", "$", "€", "#", "&", "+", "…", "\u{301}", "\u{308}", "\u{200D}", "\u{200B}", "\u{2060}",
        "\u{2028}", "\u{0B}", "\u{0C}", "😀", "👍", "\u{1F3FD}", "🇫", "🇷", "\u{AD}", "\t",
    ]

    /// Random text: mostly words of letters between spaces (as real text is, so that the
    /// finder's certain places occur), with every other character of `alphabet` mixed in.
    /// (Seeded, with the property tests' generator: a failure can be replayed.)
    static func randomText(_ g: inout PropertyTests.Generator) -> [UInt16] {
        let letters = ["a", "é", "ж", "中", "ก", "한", "ا"]
        var s = ""
        for _ in 0..<g.int(1...40) {
            switch g.int(0...9) {
            case 0..<4: s += String(repeating: letters[g.int(0...(letters.count - 1))], count: g.int(1...4))
            case 4..<6: s += " "
            default: s += alphabet[g.int(0...(alphabet.count - 1))]
            }
        }
        return utf16(s)
    }

    /// For every opportunity `start` and every later `fit`, the finder answers the last
    /// opportunity ICU finds from the text's start in `start+1...fit` — or nothing, and
    /// then only the walk over all of them finds it — in several locales (Japanese, Chinese
    /// and Thai pick other rules or a dictionary). Plain spaced words are answered without
    /// the walk.
    @Test func theFinderAnswersWhatTheWholeScanFinds() throws {
        var g = PropertyTests.Generator(state: 0x5EED)
        var asked = 0, answered = 0
        var wrong: [String] = []
        for round in 0..<1200 {
            let units = Self.randomText(&g)
            let locale = ["", "ja", "zh", "th", "en_US"][round % 5]
            let all = try units.withUnsafeBufferPointer { try sharedEngine.breakIterators.boundaries(.line, of: $0, locale: locale) }
            try units.withUnsafeBufferPointer { (text) throws in
                let finder = LineBreakFinder(text, locale: locale, pool: sharedEngine.breakIterators)
                for startIndex in all.offsets.indices.dropLast() {
                    let start = Int(all.offsets[startIndex])
                    for fit in (start + 1)...text.count {
                        asked += 1
                        let expected = all.offsets.last { Int($0) > start && Int($0) <= fit }.map(Int.init)
                        guard let found = try finder.last(after: start, atOrBefore: fit) else { continue }
                        answered += 1
                        if found != expected, wrong.count < 5 {
                            wrong.append("\(locale) \(units.map { String($0, radix: 16) }) from \(start) to \(fit): \(found), not \(String(describing: expected))")
                        }
                    }
                }
                #expect(try finder.allOpportunities().offsets == all.offsets)
            }
        }
        #expect(wrong.isEmpty, "\(wrong)")
        // (Thai, in a seventh of the words, and stretches without certain places take it.)
        #expect(answered * 3 > asked, "many lines are answered without the walk: \(answered) of \(asked)")

        let plain = utf16("The quick brown fox jumps over the lazy dog again and again")
        try plain.withUnsafeBufferPointer { (text) throws in
            let finder = LineBreakFinder(text, locale: "", pool: sharedEngine.breakIterators)
            #expect(try finder.last(after: 0, atOrBefore: 22) == 20)   // "The quick brown fox |ju"
            #expect(try finder.last(after: 0, atOrBefore: 20) == 20)
            #expect(finder.all == nil)
        }
        // Thai between spaces: ICU's dictionary breaks each run between them, whole.
        let thai = utf16("ภาษาไทยเป็นภาษาที่ยาก ระบบนี้ทำงานได้ดีมาก ขอบคุณครับ")
        let thaiAll = try thai.withUnsafeBufferPointer { try sharedEngine.breakIterators.boundaries(.line, of: $0, locale: "th") }
        try thai.withUnsafeBufferPointer { (text) throws in
            let finder = LineBreakFinder(text, locale: "th", pool: sharedEngine.breakIterators)
            for fit in 30..<40 {
                let expected = thaiAll.offsets.last { Int($0) <= fit }.map(Int.init)
                #expect(try finder.last(after: 0, atOrBefore: fit) == expected, "up to \(fit)")
            }
            #expect(finder.all == nil)
        }
    }

    static let eager: TextLayoutEngine = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCache: ShapeCache(capacity: 20_000),
                                                          findingBreaksOnDemand: false)

    /// Whole layouts: the same lines with opportunities found on demand as with all found
    /// ahead, for every paragraph of the corpus at widths from a few characters (words
    /// broken between clusters) to wider than most paragraphs, and for random text with
    /// hard breaks, tabs and soft hyphens (which take the walk) at narrow widths.
    @Test func layoutsAreTheSameEitherWay() throws {
        let onDemand = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCache: ShapeCache(capacity: 20_000))
        var different: [String] = []
        var lines = 0
        for (lang, text) in try ShapeCacheTests.corpus() {
            for width in [1000.0, 360, 97.5, 31] {
                let request = LayoutRequest(text: utf16(text), width: width, font: FontDescriptor(family: "Noto Sans", size: 16),
                                            language: lang)
                let a = try onDemand.layout(request), b = try Self.eager.layout(request)
                lines += a.lines.count
                if a.lines.map({ [$0.start, $0.end] }) != b.lines.map({ [$0.start, $0.end] }), different.count < 5 {
                    different.append("\(lang) at \(width): \(text.prefix(40))")
                }
            }
        }
        var g = PropertyTests.Generator(state: 0xB0B)
        for round in 0..<600 {
            let units = Self.randomText(&g)
            for width in [64.0, 23] {
                let request = LayoutRequest(text: units, width: width, language: ["", "ja", "th"][round % 3])
                let a = try onDemand.layout(request), b = try Self.eager.layout(request)
                lines += a.lines.count
                if a.lines.map({ [$0.start, $0.end] }) != b.lines.map({ [$0.start, $0.end] }), different.count < 5 {
                    different.append("random \(units.map { String($0, radix: 16) }) at \(width)")
                }
            }
        }
        // Runs of spaces and of marks longer than the finder looks back over.
        let long = ["word" + String(repeating: " ", count: 600) + "next one here",
                    "x" + String(repeating: "\u{301}", count: 600) + " y z w" + String(repeating: " ab", count: 200),
                    String(repeating: "(a) ", count: 300), String(repeating: "中文", count: 400) + " end"]
        for text in long {
            for width in [40.0, 97.5, 360] {
                let request = LayoutRequest(text: utf16(text), width: width)
                let a = try onDemand.layout(request), b = try Self.eager.layout(request)
                lines += a.lines.count
                if a.lines.map({ [$0.start, $0.end] }) != b.lines.map({ [$0.start, $0.end] }), different.count < 5 {
                    different.append("long runs at \(width): \(text.prefix(20))")
                }
            }
        }
        #expect(different.isEmpty, "\(different)")
        #expect(lines > 20_000)
    }
}
