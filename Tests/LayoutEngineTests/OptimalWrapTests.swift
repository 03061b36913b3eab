import TestSupport
import Testing
@testable import LayoutEngine

/// `wrapStyle: optimal` and `pretty`: the total fit is the least-cost breaking (checked
/// against every breaking of small paragraphs), and laid-out lines cover the text, fit their
/// widths, and equal greedy's where there is nothing to choose.
@Suite struct OptimalWrapTests {
    static let noStop: (@Sendable () -> EngineError?)? = nil

    /// A paragraph of `widths.count` words, each followed by a space of `space`: candidates
    /// after each space, the end last.
    struct Words {
        var widths: [Double]
        let space = 4.0
        /// Offsets are word indices: a line from word `s` to `e` is their widths and the spaces
        /// between them (the last one hangs).
        func measure(_ s: Int, _ e: Int) -> Double {
            widths[s..<e].reduce(0, +) + space * Double(max(0, e - s - 1))
        }
        var candidates: [BreakCandidate] {
            (0...widths.count).map { BreakCandidate(offset: $0, showsHyphen: false, addsHyphen: false, mandatory: false) }
        }
    }

    /// The least cost of any breaking, by trying every subset of the breaks between words.
    func bruteForce(_ words: Words, width: Double, fit: TotalFit) -> Double {
        let n = words.widths.count
        var best = Double.infinity
        for mask in 0..<(1 << (n - 1)) {
            var ends = (1..<n).filter { mask & (1 << ($0 - 1)) != 0 }
            ends.append(n)
            var start = 0, cost = 0.0, fits = true
            for (k, end) in ends.enumerated() {
                let w = words.measure(start, end)
                if w > width { fits = false; break }
                cost += fit.linePenalty
                if k == ends.count - 1 {
                    let short = width / 3 - w
                    if short > 0 { cost += short * short }
                } else {
                    cost += (width - w) * (width - w)
                }
                start = end
            }
            if fits { best = min(best, cost) }
        }
        return best
    }

    func cost(_ ends: [PlannedEnd], _ words: Words, width: Double, fit: TotalFit) -> Double {
        var start = 0, cost = 0.0
        for (k, e) in ends.enumerated() {
            let w = words.measure(start, e.end)
            cost += fit.linePenalty
            if k == ends.count - 1 { cost += max(0, width / 3 - w) * max(0, width / 3 - w) } else { cost += (width - w) * (width - w) }
            start = e.end
        }
        return cost
    }

    @Test func theTotalFitIsTheLeastCostBreaking() throws {
        var random = SeededGenerator(state: 32)
        for _ in 0..<60 {
            let words = Words(widths: (0..<Int.random(in: 3...12, using: &random)).map { _ in Double.random(in: 8...60, using: &random) })
            let width = Double.random(in: 62...160, using: &random)
            let fit = TotalFit(firstWidth: width, otherWidth: width, hyphenWidth: 0) { s, e, _ in words.measure(s, e) }
            let ends = try #require(try fit.ends(words.candidates, startsParagraph: true, shouldStop: Self.noStop))
            #expect(abs(cost(ends, words, width: width, fit: fit) - bruteForce(words, width: width, fit: fit)) < 1e-6)
        }
        // A word wider than the line: no breaking fits, and greedy breaks it.
        let wide = Words(widths: [20, 200, 20])
        let fit = TotalFit(firstWidth: 100, otherWidth: 100, hyphenWidth: 0) { s, e, _ in wide.measure(s, e) }
        #expect(try fit.ends(wide.candidates, startsParagraph: true, shouldStop: Self.noStop) == nil)
    }

    func layout(_ text: String, width: Double = 200, _ change: (inout LayoutRequest) -> Void = { _ in }) throws -> TextLayout {
        var r = LayoutRequest(text: utf16(text), width: width, font: FontDescriptor(family: "Noto Sans", size: 16), language: "en")
        change(&r)
        return try sharedEngine.layout(r)
    }

    @Test func linesCoverTheTextAndFitTheirWidths() throws {
        let text = "Typography is the art and technique of arranging type to make written language legible, readable "
            + "and appealing when displayed. The arrangement of type involves selecting typefaces, point sizes, line "
            + "lengths, line spacing and letter spacing, and adjusting the space between pairs of letters."
        let greedy = try layout(text)
        func raggedness(_ l: TextLayout) -> Double { l.lines.dropLast().reduce(0) { $0 + (200 - $1.width) * (200 - $1.width) } }
        for style in [WrapStyle.optimal, .pretty] {
            for hyphenation in [Hyphenation.manual, .auto] {
                let laid = try layout(text) {
                    $0.paragraph.wrapStyle = style
                    $0.paragraph.hyphenation = hyphenation
                    $0.paragraph.firstLineIndent = 24
                }
                #expect(laid.lines.first?.start == 0 && laid.lines.last?.end == utf16(text).count)
                #expect(zip(laid.lines, laid.lines.dropFirst()).allSatisfy { $0.end == $1.start })
                #expect(laid.lines.enumerated().allSatisfy { $1.width <= ($0 == 0 ? 176 : 200) + 1e-6 }, "\(style) \(hyphenation)")
            }
        }
        let optimal = try layout(text) { $0.paragraph.wrapStyle = .optimal }
        #expect(raggedness(optimal) < raggedness(greedy))
        #expect(optimal.lines.count <= greedy.lines.count + 1)
    }

    @Test func nothingToChooseIsGreedys() throws {
        // One line; lines ended by U+2028 that each fit; no width.
        for text in ["Short message", "First line\u{2028}second line\u{2028}third"] {
            for style in [WrapStyle.optimal, .pretty] {
                #expect(try layout(text) { $0.paragraph.wrapStyle = style }.lines == layout(text).lines)
            }
        }
        let long = String(repeating: "word ", count: 40)
        #expect(try layout(long, width: 0) { $0.paragraph.wrapStyle = .optimal }.lines.count
                    == layout(long, width: 0).lines.count)
        // Exclusions: lines follow their slots, greedily.
        let excluded = try layout(long) {
            $0.paragraph.wrapStyle = .optimal
            $0.exclusions = [Rect(x: 0, y: 0, width: 80, height: 40)]
        }
        #expect(excluded.lines == (try layout(long) { $0.exclusions = [Rect(x: 0, y: 0, width: 80, height: 40)] }).lines)
        // A line limit truncates the planned lines.
        let truncated = try layout(long) {
            $0.paragraph.wrapStyle = .optimal
            $0.maxLines = 2
        }
        #expect(truncated.lines.count == 2)
    }
}
