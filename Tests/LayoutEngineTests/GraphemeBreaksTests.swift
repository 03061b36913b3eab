import TestSupport
import Testing
@testable import LayoutEngine

/// Layout finds grapheme boundaries with its own pass over ICU's property data
/// (`GraphemeBreaks`), not ICU's iterator. They must agree everywhere: on every corpus
/// paragraph, on text built from the code points the rules treat specially, and on Unicode's
/// own test file (`ConformanceTests.graphemeBoundaries` runs it through the same path).
@Suite struct GraphemeBreaksTests {
    /// ICU's character break iterator on `units`.
    func icu(_ units: [UInt16]) throws -> [Int32] {
        try units.withUnsafeBufferPointer { try sharedEngine.breakIterators.boundaries(.grapheme, of: $0, locale: "").offsets }
    }

    func ours(_ units: [UInt16]) -> [Int32] {
        units.withUnsafeBufferPointer { GraphemeBreaks.boundaries($0) }
    }

    @Test func corpusParagraphsAgreeWithICU() throws {
        var checked = 0
        for (lang, text) in try ShapeCacheTests.corpus() {
            let units = Array(text.utf16)
            let expected = try icu(units)
            #expect(ours(units) == expected, "\(lang): boundaries differ from ICU's")
            checked += expected.count
        }
        #expect(checked > 50_000)
    }

    /// Random strings over code points of every class the rules name (controls, Hangul
    /// jamo and syllables, marks, spacing marks, prepends, ZWJ, regional indicators,
    /// pictographs, skin tones, lone surrogates, and the consonants, viramas and nuktas of
    /// ICU's Indic conjunct rule, with Tamil's outside it): 20,000 of them, against ICU.
    @Test func randomSequencesOfEveryClassAgreeWithICU() throws {
        let pool: [UInt32] = [0x0D, 0x0A, 0x00, 0x1F, 0x85, 0x200B, 0x2028, 0x0041, 0x0020, 0x4E00, 0x0E01,
                              0x1100, 0x1161, 0x11A8, 0xAC00, 0xAC01, 0x0300, 0x0308, 0x094D, 0x0903, 0x0E33,
                              0x0600, 0x110BD, 0x200D, 0x1F1E6, 0x1F1F7, 0x1F1FA, 0x2764, 0x1F468, 0x1F469,
                              0x1F3FB, 0xFE0F, 0x00A9, 0xD800, 0xDC00, 0x0915, 0x093F, 0x1F476, 0xE0061, 0xE007F,
                              0x0915, 0x0937, 0x094D, 0x094D, 0x093C, 0x0995, 0x09CD, 0x0A95, 0x0ACD, 0x0B95,
                              0x0BCD, 0x0C15, 0x0C4D, 0x0D15, 0x0D4D, 0x0B15, 0x0B4D]
        var random = XorShift64(state: 0x9E37_79B9_7F4A_7C15)
        func next() -> Int { Int(random.next() % UInt64(pool.count)) }
        var mismatches: [String] = []
        for _ in 0..<20_000 {
            var units: [UInt16] = []
            for _ in 0..<(1 + next() % 12) {
                let scalar = pool[next()]
                if scalar >= 0xD800 && scalar < 0xE000 {
                    units.append(UInt16(scalar))
                } else if let u = Unicode.Scalar(scalar) {
                    units.append(contentsOf: String(Character(u)).utf16)
                }
            }
            let expected = try icu(units)
            if ours(units) != expected, mismatches.count < 5 {
                mismatches.append("\(units.map { String($0, radix: 16) }): ICU \(expected), ours \(ours(units))")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test func emptyTextHasOneBoundary() {
        #expect(ours([]) == [0])
    }
}
