import TestSupport
import Testing
@testable import LayoutEngine
#if canImport(Glibc)
import Glibc
#endif

/// Every fully-qualified sequence of emoji-test.txt (Debian's unicode-data) is one grapheme
/// cluster, goes to the color emoji font, and shapes to one glyph where the font has one.
@Suite struct EmojiTests {
    static func fullyQualified() -> [(line: Int, scalars: [UInt32])] {
        guard let file = fopen("/usr/share/unicode/emoji/emoji-test.txt", "r") else { return [] }
        defer { fclose(file) }
        var result: [(Int, [UInt32])] = []
        var buffer = [CChar](repeating: 0, count: 4096)
        var n = 0
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            n += 1
            let line = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard !line.hasPrefix("#"), line.contains("; fully-qualified") else { continue }
            let codes = line.split(separator: ";")[0].split(separator: " ").compactMap { UInt32($0, radix: 16) }
            result.append((n, codes))
        }
        return result
    }

    @Test func fullyQualifiedSequencesAreOneClusterAndOneColorGlyph() throws {
        let sequences = Self.fullyQualified()
        #expect(sequences.count > 3000, "emoji-test.txt missing? install unicode-data")
        var notOneCluster: [Int] = []
        var notColor: [Int] = []
        var notOneGlyph: [Int] = []
        for (line, scalars) in sequences {
            let text = scalars.flatMap { Array(String(Character(Unicode.Scalar($0)!)).utf16) }
            if try sharedEngine.boundaries(.grapheme, of: text) != [0, text.count] { notOneCluster.append(line) }
            let result = try sharedEngine.layout(LayoutRequest(text: text, font: FontDescriptor(family: "Noto Sans"), detail: .glyphs))
            let runs = result.lines.flatMap(\.runs)
            if runs.count != 1 || result.fonts[runs[0].font].family != "Noto Color Emoji" { notColor.append(line); continue }
            if runs[0].glyphs.count != 1 { notOneGlyph.append(line) }
        }
        let total = sequences.count
        print("emoji-test.txt: \(total) fully-qualified sequences; one grapheme: \(total - notOneCluster.count); color font: \(total - notColor.count); one glyph: \(total - notColor.count - notOneGlyph.count)\(notOneGlyph.isEmpty ? "" : "; several glyphs (not in the font) at lines \(notOneGlyph.prefix(20))")")
        #expect(notOneCluster.isEmpty, "not one grapheme: lines \(notOneCluster.prefix(10))")
        #expect(notColor.isEmpty, "not in the color font: lines \(notColor.prefix(10))")
        #expect(notOneGlyph.count * 100 <= total, "more than 1% of sequences shape to several glyphs: \(notOneGlyph.prefix(10))")
    }

    @Test func presentationSelectorsChooseTheFont() throws {
        func family(_ s: String) throws -> String {
            let r = try sharedEngine.layout(LayoutRequest(text: utf16(s), font: FontDescriptor(family: "DejaVu Sans"), detail: .runs))
            return r.fonts[r.lines[0].runs[0].font].family
        }
        #expect(try family("\u{263A}\u{FE0F}") == "Noto Color Emoji")   // emoji presentation asked for
        #expect(try family("\u{263A}\u{FE0E}") == "DejaVu Sans")        // text presentation asked for
        #expect(try family("\u{263A}") == "DejaVu Sans")                // text by default, font has it
        #expect(try family("\u{231A}") == "Noto Color Emoji")           // emoji by default
        #expect(try family("1\u{FE0F}\u{20E3}") == "Noto Color Emoji")  // keycap
    }

    /// A space after an emoji is set in the text font, not the emoji font (whose space is an
    /// emoji wide): found when the first rendered picture showed a gap after 👍🏽.
    @Test func aSpaceAfterAnEmojiTakesTheTextFont() throws {
        let r = try sharedEngine.layout(LayoutRequest(text: utf16("a 👍🏽 b"), font: FontDescriptor(family: "Noto Sans"), detail: .glyphs))
        let runs = r.lines[0].runs
        let spaceRun = try #require(runs.first { run in run.start <= 6 && run.end > 6 })
        #expect(r.fonts[spaceRun.font].family == "Noto Sans")
        let space = try #require(spaceRun.glyphs.first { $0.cluster == 6 })
        #expect(space.advance < 6, "a text space is about a quarter em, got \(space.advance)")
    }
}
