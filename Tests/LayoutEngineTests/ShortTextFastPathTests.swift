import TestSupport
import Testing
@testable import LayoutEngine

/// Short messages, as a chat backend sends them, take the engine's short cuts: one bidi level
/// resolved without ICU (plain left to right, or purely right to left), no ICU line iterator
/// for a paragraph that fits its first line, no font table for a caller that reads only
/// sizes. Each must give exactly what the general path gives.
@Suite struct ShortTextFastPathTests {
    /// Latin, Arabic, Hebrew (with points), emoji ZWJ sequences, CJK, mixed bidi, digits in
    /// right-to-left text, and messages cut mid-word, as the bench's short messages are.
    static let messages = [
        "ok", "Hello, world!", "see you at 5pm 👍", "Grüße aus Köln, Ünal!",
        "مرحبا بالعالم", "شكراً جزيلاً!", "ن طريق اعتبارها &amp; على أيّ فإن", "لا", "ل\u{200D}",
        "שלום עולם", "מה שלומך?", "שָׁלוֹם, (עולם)!", "\u{5D0}\u{1C}\u{5D1}\t\u{5D2}", "  ש  ",
        "👨‍👩‍👧‍👦", "👩🏽‍💻 coding", "🏳️‍🌈🏳️‍🌈 🇺🇳", "❤️‍🔥",
        "你好，世界", "こんにちは、元気ですか？", "안녕하세요 여러분", "eadable 1024 の累乗でサイズを表示する (例: 1023M)",
        "hello שלום world", "abc مرحبا 123", "שלום 123 עולם", "مرحبا ١٢٣ بالعالم", "\u{202B}abc\u{202C} ש",
        "du, trouvé impossi", "rait vers la sortie standard caractère « » non valable dans la longueur d",
        "ersetzen Sie die Datei nic", "раз в неделю обновля", "ατος δεν είναι δυνατ", ".", " ", "",
    ]

    static let general = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCache: ShapeCache(capacity: 20_000),
                                          resolvingOneLevelTextWithoutICU: false)

    /// What two layouts must agree on: every line (its runs and glyphs too), the size, and
    /// the font table.
    func difference(_ a: TextLayout, _ b: TextLayout, comparingFonts: Bool = true) -> String? {
        if a.lines != b.lines { return "lines differ: \(a.lines.map { [$0.start, $0.end] }) vs \(b.lines.map { [$0.start, $0.end] })" }
        if a.width != b.width || a.height != b.height { return "size \(a.width)×\(a.height) vs \(b.width)×\(b.height)" }
        if a.truncated != b.truncated { return "truncated differs" }
        if comparingFonts, a.fonts != b.fonts { return "fonts differ" }
        return nil
    }

    func request(_ text: String, width: Double?, direction: ParagraphDirection, detail: LayoutDetail) -> LayoutRequest {
        LayoutRequest(text: utf16(text), width: width, font: FontDescriptor(family: "Noto Sans", size: 16),
                      direction: direction, detail: detail)
    }

    @Test func oneLevelTextLaysOutAsICUResolvesIt() throws {
        var failures: [String] = []
        var withoutICU = 0
        for text in Self.messages {
            let units = utf16(text)
            for direction in ParagraphDirection.allCases {
                let oneLevel = units.withUnsafeBufferPointer {
                    (direction != .rtl && BidiParagraph.isPlainLeftToRight($0))
                        || BidiParagraph.isPureRightToLeft($0, direction: direction)
                }
                if oneLevel { withoutICU += 1 }
                for width in [nil, 280, 60, 17] as [Double?] {
                    for detail in [LayoutDetail.lines, .glyphs] {
                        let r = request(text, width: width, direction: direction, detail: detail)
                        let fast = try sharedEngine.layout(r), icu = try Self.general.layout(r)
                        if let d = difference(fast, icu), failures.count < 5 {
                            failures.append("\(text) \(direction) at \(width ?? -1), \(detail): \(d)")
                        }
                    }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(withoutICU > Self.messages.count, "most messages should take the short cut in some direction")
    }

    /// Purely right-to-left text: the levels and every line's visual runs are ICU's.
    @Test func pureRightToLeftLevelsAreICUs() throws {
        let rtl = ["שלום עולם", "שָׁלוֹם, (עולם)!", "مرحبا بالعالم", "ل\u{200D}", "\u{5D0}\u{1C}\u{5D1}\t\u{5D2}", "  ש  ",
                   "«אבג» — ?", "\u{10800}\u{10801} \u{1E900}", "   ", "!?"]
        for text in rtl {
            let units = utf16(text)
            for direction in [ParagraphDirection.auto, .rtl] {
                try units.withUnsafeBufferPointer { (buffer) throws in
                    let fast = try BidiParagraph(text: buffer, direction: direction)
                    let icu = try BidiParagraph(text: buffer, direction: direction, plainFastPath: false)
                    #expect(fast.levels == icu.levels && fast.paragraphLevel == icu.paragraphLevel, "\(text) \(direction)")
                    let n = units.count
                    for (a, b) in [(0, n), (0, n / 2), (n / 3, n)] where b > a {
                        var fastLevels = [UInt8](repeating: 9, count: b - a), icuLevels = fastLevels
                        let f = try fast.visualRuns(a, b, lineLevels: &fastLevels)
                        let i = try icu.visualRuns(a, b, lineLevels: &icuLevels)
                        #expect(f == i && fastLevels == icuLevels, "\(text) \(direction) line \(a)..<\(b)")
                    }
                }
            }
        }
    }

    /// Short words are words too: a message seen before, even one cut mid-word, with a user
    /// name, an emoji run or right-to-left text, is served by the shape cache whole the second
    /// time (no word shaped again), at each width it is measured at.
    @Test func repeatedMessagesShapeNothingAgain() throws {
        let engine = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCache: ShapeCache(capacity: 20_000))
        let chat = Self.messages + ["@alice: see you at 5pm 👍🏽", "@alice: 👍🏽👍🏽👍🏽", "#general ok", "@bob שלום"]
        for text in chat { _ = try engine.layout(request(text, width: 280, direction: .auto, detail: .lines)) }
        let missesBefore = engine.shapeCache.lookupCounts.misses
        for text in chat {
            for width in [280.0, 60] { _ = try engine.layout(request(text, width: width, direction: .auto, detail: .lines)) }
        }
        #expect(engine.shapeCache.lookupCounts.misses == missesBefore, "every word of a repeated message found")
    }

    /// Without a font table asked for (as `measure` asks), the lines and size are the same.
    @Test func sizesWithoutAFontTableAreTheSame() throws {
        var failures: [String] = []
        for text in Self.messages {
            for width in [nil, 280, 17] as [Double?] {
                let full = request(text, width: width, direction: .auto, detail: .lines)
                var sizesOnly = full
                sizesOnly.wantsFontTable = false
                if let d = difference(try sharedEngine.layout(sizesOnly), try Self.general.layout(full), comparingFonts: false),
                   failures.count < 5 {
                    failures.append("\(text) at \(width ?? -1): \(d)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }
}
