import TestSupport
import Testing
@testable import LayoutEngine

/// Lines end between the clusters the text was shaped into, never inside a ligature ("ffl",
/// "ffi": one glyph for several letters, which HarfBuzz marks unsafe to break inside): not at
/// a break between clusters of a word wider than the line, a character break, a soft hyphen
/// or a dictionary point. Every glyph is then drawn on the line that holds its text, once.
@Suite struct LigatureBreakTests {
    static let texts = [
        "affluent", "of\u{AD}fice", "af\u{AD}flu\u{AD}ent of\u{AD}fi\u{AD}cial", "affluent offices officially suffice",
        "The efficient officer's affluent suffix baffled the staff", "difficult shuffle",
    ]

    func request(_ text: String, width: Double, _ change: (inout LayoutRequest) -> Void) -> LayoutRequest {
        var r = LayoutRequest(text: utf16(text), width: width, font: FontDescriptor(family: "Noto Sans", size: 16),
                              language: "en-US", detail: .glyphs)
        change(&r)
        return r
    }

    /// Every line starts and ends where a cluster of the text shaped on one line starts (or
    /// at the text's end); the clusters of the glyphs each line draws, the hyphen a hyphenated
    /// line adds aside (its own glyph after the text's, or the soft hyphen's shown), lie in its
    /// range, and together they are the whole text's, each once.
    func misplacedGlyphs(_ r: LayoutRequest) throws -> String? {
        var oneLine = r
        oneLine.width = nil
        let expected = try sharedEngine.layout(oneLine).lines.flatMap { $0.runs.flatMap { $0.glyphs.map(\.cluster) } }
        let clusterStarts = Set(expected + [r.text.count])
        var drawn: [Int] = []
        for line in try sharedEngine.layout(r).lines {
            guard clusterStarts.contains(line.start), clusterStarts.contains(line.end) else {
                return "line \(line.start)..<\(line.end) cuts a shaped cluster"
            }
            var clusters = line.runs.flatMap { $0.glyphs.map(\.cluster) }
            if line.hyphenated, r.text[line.end - 1] != 0xAD, !clusters.isEmpty { clusters.removeLast() }
            if let outside = clusters.first(where: { $0 < line.start || $0 >= line.end }) {
                return "a glyph of unit \(outside) drawn on line \(line.start)..<\(line.end)"
            }
            drawn += clusters
        }
        return drawn.sorted() == expected.sorted() ? nil : "glyphs drawn \(drawn.sorted()) vs \(expected.sorted())"
    }

    @Test func linesEndBetweenShapedClusters() throws {
        let modes: [(String, (inout LayoutRequest) -> Void)] = [
            ("greedy", { _ in }), ("char wrap", { $0.paragraph.wrap = .char }),
            ("no hyphenation", { $0.paragraph.hyphenation = .none }), ("auto", { $0.paragraph.hyphenation = .auto }),
            ("auto, optimal", { $0.paragraph.hyphenation = .auto; $0.paragraph.wrapStyle = .optimal }),
            ("auto, pretty", { $0.paragraph.hyphenation = .auto; $0.paragraph.wrapStyle = .pretty }),
        ]
        var failures: [String] = []
        var linesChecked = 0
        for text in Self.texts {
            for (name, change) in modes {
                for width in stride(from: 4.0, through: 140, by: 3) {
                    let r = request(text, width: width, change)
                    if let problem = try misplacedGlyphs(r), failures.count < 5 { failures.append("\(text), \(name) at \(width): \(problem)") }
                    linesChecked += try sharedEngine.layout(r).lines.count
                }
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(linesChecked > 5000)
    }

    /// The rule costs no break between clusters: a word without ligatures still breaks at
    /// every cluster when wider than the line, and dictionary points between clusters stay.
    @Test func breaksBetweenClustersRemain() throws {
        let narrow = try sharedEngine.layout(request("abcdef", width: 4) { _ in })
        #expect(narrow.lines.map(\.start) == [0, 1, 2, 3, 4, 5])
        let ligature = try sharedEngine.layout(request("affluent", width: 4) { _ in })
        #expect(ligature.lines.map(\.start) == [0, 1, 4, 5, 6, 7], "\"ffl\" is one cluster: no line starts inside it")
        let hyphenated = try sharedEngine.layout(request("affluent offices", width: 40) { $0.paragraph.hyphenation = .auto })
        #expect(hyphenated.lines.allSatisfy { $0.start == 0 || ![2, 3, 11, 12].contains($0.start) })
    }
}
