import TestSupport
import Testing
@testable import LayoutEngine

/// What a retained document counts per piece without a layout: its lengths in every
/// encoding, and the grapheme boundaries around an offset found over one paragraph.
@Suite struct TextCountsTests {
    /// Units drawn from the cases that count differently: ASCII, two- and three-byte
    /// characters, surrogate pairs and lone surrogates of either kind, paragraph separators
    /// (CR, LF, CRLF, U+2029), a combining mark, ZWJ and an emoji.
    static func randomUnits(_ count: Int, _ rng: inout SeededGenerator) -> [UInt16] {
        let pieces: [[UInt16]] = [[0x61], [0x20], [0xE9], [0x3B1], [0x4E2D], [0xD83D, 0xDE00], [0xD83D], [0xDE00],
                                  [0x0D], [0x0A], [0x0D, 0x0A], [0x2029], [0x0301], [0x200D], [0xD83D, 0xDC69]]
        var units: [UInt16] = []
        while units.count < count { units += pieces[Int.random(in: 0..<pieces.count, using: &rng)] }
        return units
    }

    @Test func lengthsInEveryEncodingMatchTheStringsOwn() {
        var rng = SeededGenerator(state: 7)
        for round in 0..<300 {
            let units = Self.randomUnits(round % 40, &rng)
            let string = String(decoding: units, as: UTF16.self)   // a lone surrogate: U+FFFD, 3 bytes
            let summary = TextSummary(units: units)
            #expect(summary.utf16 == units.count)
            #expect(summary.utf8 == string.utf8.count, "\(units)")
            #expect(summary.utf32 == string.unicodeScalars.count, "\(units)")
        }
    }

    @Test func graphemeBoundsAroundAnOffsetAreTheWholeTextsBoundaries() {
        var rng = SeededGenerator(state: 11)
        for round in 0..<200 {
            let units = Self.randomUnits(1 + round % 30, &rng)
            let all = units.withUnsafeBufferPointer { GraphemeBreaks.boundaries($0) }.map { Int($0) }
            for offset in 0...units.count {
                let bounds = graphemeBounds(around: offset, in: units)
                #expect(bounds.atOrBefore == all.last { $0 <= offset }, "\(units) at \(offset)")
                #expect(bounds.atOrAfter == all.first { $0 >= offset }, "\(units) at \(offset)")
            }
        }
    }
}
