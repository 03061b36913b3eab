import LayoutEngine
import LayoutProtocol
import TestSupport
import Testing
@testable import LayoutServer

/// Where a long document is cut into pieces, against the rule read over every paragraph:
/// the first paragraph end a piece's length on that no link (or other region span) crosses.
@Suite struct DocumentCutsTests {
    static func reference(_ text: [UInt16], spans: [TextSpan]) -> [Range<Int>] {
        var ranges: [Range<Int>] = [], start = 0
        for end in paragraphEnds(of: text) where end < text.count && end - start >= DocumentCuts.pieceLength {
            let crossed = spans.contains { $0.end > $0.start && DocumentCuts.makesRegion($0.attributes) && $0.start < end && $0.end > end }
            if !crossed {
                ranges.append(start..<end)
                start = end
            }
        }
        ranges.append(start..<text.count)
        return ranges
    }

    @Test func cutsMatchTheRuleOverEveryParagraph() {
        var rng = SeededGenerator(state: 5)
        var link = SpanAttributes()
        link.link = "https://example.com/"
        let separators: [[UInt16]] = [[0x0A], [0x0D], [0x0D, 0x0A], [0x2029], [0x85]]
        for round in 0..<60 {
            var text: [UInt16] = []
            let target = Int.random(in: 0..<(DocumentCuts.pieceLength * 5), using: &rng)
            while text.count < target {
                text += [UInt16](repeating: 0x61, count: Int.random(in: 0..<1500, using: &rng))
                text += separators[Int.random(in: 0..<separators.count, using: &rng)]
            }
            var spans: [TextSpan] = []
            for _ in 0..<(round % 6) where !text.isEmpty {
                let s = Int.random(in: 0..<text.count, using: &rng)
                spans.append((s, min(text.count, s + Int.random(in: 0..<6000, using: &rng)), round % 2 == 0 ? link : SpanAttributes()))
            }
            #expect(DocumentCuts.ranges(text, spans: spans) == Self.reference(text, spans: spans), "round \(round)")
        }
    }
}
