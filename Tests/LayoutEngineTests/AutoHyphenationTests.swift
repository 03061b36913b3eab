import TestSupport
import Testing
@testable import LayoutEngine

/// `hyphenation: auto` in the engine: where it applies and where it does not, and how it sits
/// with justification, balanced lines and the reuse of lines across layouts.
@Suite struct AutoHyphenationTests {
    let text = "The typography conference discussed hyphenation and internationalization at length"

    func request(_ text: String, width: Double = 150, _ change: (inout LayoutRequest) -> Void = { _ in }) -> LayoutRequest {
        var r = LayoutRequest(text: utf16(text), width: width, font: FontDescriptor(family: "Noto Sans", size: 16),
                              language: "en-US")
        r.paragraph.hyphenation = .auto
        change(&r)
        return r
    }

    func hyphenatedEnds(_ r: LayoutRequest) throws -> [Int] {
        try sharedEngine.layout(r).lines.filter(\.hyphenated).map(\.end)
    }

    @Test func wordsBreakAtTheDictionarysPointsOnly() throws {
        let layout = try sharedEngine.layout(request(text))
        let ends = layout.lines.filter(\.hyphenated).map(\.end)
        #expect(!ends.isEmpty)
        let units = utf16(text)
        for end in ends {
            // Inside a word, between two letters, and no line is wider than the box.
            #expect(end > 0 && end < units.count && units[end - 1] != 0x20 && units[end] != 0x20)
        }
        #expect(layout.lines.allSatisfy { $0.width <= 150.0001 })
        #expect(try hyphenatedEnds(request(text) { $0.paragraph.hyphenation = .manual }).isEmpty)
    }

    @Test func notInTextLeftWholeRightToLeftOrCharacterWrapping() throws {
        let all = try hyphenatedEnds(request(text))
        #expect(try hyphenatedEnds(request(text) { $0.unhyphenated = [0..<utf16(self.text).count] }).isEmpty)
        // Leaving one hyphenated word whole keeps the others' hyphens before it.
        let first = try #require(all.first)
        let kept = try hyphenatedEnds(request(text) { $0.unhyphenated = [(first - 2)..<(first + 2)] })
        #expect(!kept.contains(first))
        #expect(try hyphenatedEnds(request(text) { $0.paragraph.direction = .rtl }).isEmpty)
        #expect(try hyphenatedEnds(request(text) { $0.paragraph.wrap = .char }).isEmpty)
        #expect(try hyphenatedEnds(request(text) { $0.language = "" }).isEmpty)
    }

    @Test func justifiedAndBalancedLinesHyphenateToo() throws {
        let justified = try sharedEngine.layout(request(text) { $0.paragraph.align = .justify })
        let full = justified.lines.dropLast().filter { line in
            utf16(self.text)[line.start..<line.end].contains(0x20)
        }
        #expect(full.allSatisfy { abs($0.width - 150) < 0.01 }, "justified lines fill the width, hyphen included")
        #expect(justified.lines.contains { $0.hyphenated })
        let greedy = try sharedEngine.layout(request(text))
        let balanced = try sharedEngine.layout(request(text) { $0.paragraph.wrapStyle = .balance })
        #expect(balanced.lines.count == greedy.lines.count)
        #expect(balanced.lines.allSatisfy { $0.width <= 150.0001 })
    }

    @Test func linesAreNotTakenOverAcrossHyphenationModes() throws {
        let manual = try sharedEngine.layout(request(text) {
            $0.paragraph.hyphenation = .manual
            $0.keepsReusable = true
        })
        let previous = try #require(manual.reusable)
        let auto = try sharedEngine.layout(request(text) { $0.previous = previous })
        let fresh = try sharedEngine.layout(request(text))
        #expect(auto.lines == fresh.lines)
        #expect(auto.lines != manual.lines)
    }
}
