import Foundation
import LayoutProtocol
import Testing

/// `wrapStyle` "optimal" and "pretty" under `maxLines`, through the socket: a paragraph the
/// limit cuts shows lines broken for what it shows, and one greedy shows whole is not cut.
@Suite struct LimitedWrapIntegrationTests {
    func layout(_ client: Client, _ text: String, width: Double, language: String = "en",
                _ paragraph: JSONValue) throws -> LayoutResult {
        try #require(LayoutResult(json: client.result("layout", [
            "text": .string(text), "width": .number(width), "font": ["family": "Noto Sans", "size": 16],
            "language": .string(language), "paragraph": paragraph])))
    }

    /// The squared room left on the first `count` lines.
    func raggedness(_ lines: [LineResult], width: Double, count: Int) -> Double {
        lines.prefix(count).reduce(0) { $0 + (width - $1.width) * (width - $1.width) }
    }

    /// Corpus paragraphs at three widths and four limits, each cut: the limited layout has
    /// `maxLines` contiguous lines from the start within the width, and the lines before the
    /// truncated one leave no more squared room than the first lines of the whole
    /// paragraph's optimal breaking or of greedy's, and less than the whole breaking's in
    /// some (the hidden text no longer shapes them).
    @Test func cutLinesAreTheBestForWhatTheyShow() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        var compared = 0, better = 0
        for paragraph in try loadCorpus().prefix(50) {
            for width in [200.0, 280, 360] {
                let whole = try layout(client, paragraph.text, width: width, ["wrapStyle": "optimal", "hyphenation": "none"]).lines
                let greedy = try layout(client, paragraph.text, width: width, ["hyphenation": "none"]).lines
                for limit in [2, 3, 5, 8] where greedy.count > limit {
                    let cut = try layout(client, paragraph.text, width: width, [
                        "wrapStyle": "optimal", "hyphenation": "none", "maxLines": .number(Double(limit))])
                    #expect(cut.truncated && cut.lines.count == limit && cut.lines.first?.start == 0)
                    #expect(zip(cut.lines, cut.lines.dropFirst()).allSatisfy { $0.end == $1.start })
                    #expect(cut.lines.allSatisfy { $0.width <= width + 0.001 })
                    let shown = raggedness(cut.lines, width: width, count: limit - 1)
                    #expect(shown <= raggedness(whole, width: width, count: limit - 1) + 1e-6, "\(paragraph.id) \(width) \(limit)")
                    #expect(shown <= raggedness(greedy, width: width, count: limit - 1) + 1e-6, "\(paragraph.id) \(width) \(limit)")
                    if shown < raggedness(whole, width: width, count: limit - 1) - 1e-6 { better += 1 }
                    compared += 1
                }
            }
        }
        #expect(compared > 300 && better > 50, "\(better) of \(compared)")
    }

    /// Paragraphs whose whole optimal breaking (with dictionary hyphenation) takes one line
    /// more than greedy's: limited to greedy's count, they show whole, not truncated.
    @Test func optimalShowsWholeWhatGreedyShowsWhole() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let corpus = try loadCorpus()
        for (index, width) in [(6, 308.0), (13, 243), (19, 360), (21, 204)] {
            let p = corpus[index]
            let auto: [(String, JSONValue)] = [("hyphenation", "auto")]
            let greedy = try layout(client, p.text, width: width, language: p.lang, .object(auto)).lines
            let whole = try layout(client, p.text, width: width, language: p.lang, .object(auto + [("wrapStyle", "optimal")])).lines
            try #require(whole.count == greedy.count + 1, "\(p.id) at \(width): the case this test is about")
            let limited = try layout(client, p.text, width: width, language: p.lang,
                                     .object(auto + [("wrapStyle", "optimal"), ("maxLines", .number(Double(greedy.count)))]))
            #expect(!limited.truncated && limited.lines.count <= greedy.count, "\(p.id) at \(width)")
            #expect(limited.lines.first?.start == 0 && limited.lines.last?.end == p.text.utf16.count)
            #expect(limited.lines.allSatisfy { $0.width <= width + 0.001 })
        }
    }

    /// A `pretty` paragraph cut at a line it starts elsewhere than greedy shows greedy's lines;
    /// and a paragraph that uses up the limit with another after it is cut with the token.
    @Test func cutPrettyLinesAreGreedysAndFollowingParagraphsCount() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        var compared = 0
        for paragraph in try loadCorpus().prefix(60) {
            let greedy = try layout(client, paragraph.text, width: 360, [:]).lines
            let pretty = try layout(client, paragraph.text, width: 360, ["wrapStyle": "pretty"]).lines
            // Cut at the first line pretty starts elsewhere than greedy.
            guard let moved = Array(zip(pretty, greedy)).firstIndex(where: { $0.start != $1.start }),
                  moved >= 1, moved + 1 < greedy.count else { continue }
            let limit = JSONValue.number(Double(moved + 1))
            let cutPretty = try layout(client, paragraph.text, width: 360, ["wrapStyle": "pretty", "maxLines": limit])
            let cutGreedy = try layout(client, paragraph.text, width: 360, ["maxLines": limit])
            #expect(cutPretty.truncated && cutPretty.lines == cutGreedy.lines, "\(paragraph.id)")
            compared += 1
        }
        #expect(compared >= 3)
        let first = "Typography is the art and technique of arranging type to make written language legible."
        let two = first + "\n" + "A second paragraph follows it."
        let firstLines = try layout(client, first, width: 150, ["wrapStyle": "optimal"]).lines.count
        let cut = try layout(client, two, width: 150, ["wrapStyle": "optimal", "maxLines": .number(Double(firstLines))])
        #expect(cut.truncated && cut.lines.count == firstLines)
        #expect(cut.regions.contains { $0.kind == "truncation" })
    }
}
