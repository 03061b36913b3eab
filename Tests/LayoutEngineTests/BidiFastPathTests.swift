import Testing
@testable import LayoutEngine

/// Text with nothing right to left in it skips ICU's bidi (`BidiParagraph.isPlainLeftToRight`).
/// The levels and each line's visual runs must be exactly ICU's.
@Suite struct BidiFastPathTests {
    /// Levels, paragraph level and the visual runs of a few line splits, both ways.
    func compare(_ units: [UInt16], _ direction: ParagraphDirection) throws -> String? {
        try units.withUnsafeBufferPointer { text in
            let fast = try BidiParagraph(text: text, direction: direction)
            let icu = try BidiParagraph(text: text, direction: direction, plainFastPath: false)
            if fast.levels != icu.levels || fast.paragraphLevel != icu.paragraphLevel {
                return "levels differ for \(units.prefix(12).map { String($0, radix: 16) })"
            }
            let n = units.count
            for (a, b) in [(0, n), (0, n / 2), (n / 3, n), (n / 4, 3 * n / 4)] where b > a {
                var fastLevels = [UInt8](repeating: 9, count: b - a), icuLevels = fastLevels
                let f = try fast.visualRuns(a, b, lineLevels: &fastLevels)
                let i = try icu.visualRuns(a, b, lineLevels: &icuLevels)
                if f != i || fastLevels != icuLevels { return "line \(a)..<\(b) differs" }
            }
            return nil
        }
    }

    @Test func corpusParagraphsAgreeWithICU() throws {
        var plain = 0
        for (lang, text) in try ShapeCacheTests.corpus() {
            let units = Array(text.utf16)
            if units.withUnsafeBufferPointer(BidiParagraph.isPlainLeftToRight) { plain += 1 }
            for direction in ParagraphDirection.allCases {
                let difference = try compare(units, direction)
                #expect(difference == nil, "\(lang), \(direction): \(difference ?? "")")
            }
        }
        #expect(plain > 100, "the fast path should take most of the corpus")
    }

    /// Mixed strings: letters of both directions, digits of both kinds, neutrals, marks,
    /// explicit controls and isolates, emoji and supplementary right-to-left letters.
    @Test func randomMixedTextAgreesWithICU() throws {
        let pool: [UInt32] = [0x41, 0x20, 0x31, 0x2E, 0x28, 0x29, 0x09, 0x5D0, 0x627, 0x661, 0x6F1, 0x300, 0x200E,
                              0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
                              0x4E00, 0x1F600, 0x10800, 0x1E900, 0x10E60, 0xFB1D, 0xFE70, 0x1C, 0x1F, 0x0590, 0x08A0]
        var random = XorShift64(state: 0x2545_F491_4F6C_DD1D)
        func next() -> Int { Int(random.next() % UInt64(pool.count)) }
        var failures: [String] = []
        for _ in 0..<5_000 {
            var units: [UInt16] = []
            for _ in 0..<(1 + next() % 16) {
                units.append(contentsOf: String(Character(Unicode.Scalar(pool[next()])!)).utf16)
            }
            for direction in ParagraphDirection.allCases {
                if let difference = try compare(units, direction), failures.count < 5 { failures.append(difference) }
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    /// The scan skips every unit below U+0590 without a lookup: none of them may raise a level.
    @Test func nothingBelowHebrewRaisesALevel() {
        for u in 0..<0x0590 {
            #expect(BidiParagraph.bmpMayRaise[u >> 6] & (1 << UInt64(u & 63)) == 0, "U+\(String(u, radix: 16))")
        }
    }
}
