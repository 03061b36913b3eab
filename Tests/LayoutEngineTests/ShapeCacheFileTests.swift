import TestSupport
import Foundation
import Testing
@testable import LayoutEngine

/// The shape cache file: an engine's shape cache written out and read back into another
/// engine gives the same layouts without shaping a word again; a file cut short, changed,
/// from another shaper, for other fonts or holding values no layoutd writes is refused
/// whole, never half read.
@Suite("Kept words")
struct ShapeCacheFileTests {
    static let stamp = "layoutd test"

    func request(_ text: String, _ lang: String) -> LayoutRequest {
        LayoutRequest(text: utf16(text), width: 300, font: FontDescriptor(family: "Noto Sans", size: 16), language: lang,
                      detail: .glyphs)
    }

    /// Every glyph (id, cluster, advance, offsets) of every line.
    func glyphs(_ layout: TextLayout) -> [PositionedGlyph] {
        var all: [PositionedGlyph] = []
        for line in layout.lines {
            for run in line.runs {
                all += run.glyphs
            }
        }
        return all
    }

    @Test func wordsReadBackGiveTheSameLayoutsWithoutShaping() throws {
        let paragraphs = try ShapeCacheTests.corpus().filter { ["en", "ar", "hi", "th", "ja", "ru"].contains($0.lang) }
        let first = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCacheEntries: 20_000)
        let expected = try paragraphs.map { try first.layout(request($0.text, $0.lang)) }
        let file = first.shapeCacheFile(stamp: Self.stamp)

        let second = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCacheEntries: 20_000)
        let restored = try second.restoreShapeCacheFile(file, stamp: Self.stamp)
        #expect(restored.kept == first.shapeCache.count && restored.skipped == 0, "\(restored)")
        #expect(second.shapeCache.count == first.shapeCache.count && second.shapeCache.wordsRestored == restored.kept)
        #expect(restored.kept > 1000)
        let missesBefore = second.shapeCache.lookupCounts.misses
        for (p, want) in zip(paragraphs, expected) {
            let got = try second.layout(request(p.text, p.lang))
            #expect(got.lines.map { [$0.start, $0.end] } == want.lines.map { [$0.start, $0.end] }, "\(p.lang): lines")
            #expect(glyphs(got) == glyphs(want), "\(p.lang): glyphs")
        }
        #expect(second.shapeCache.lookupCounts.misses == missesBefore, "every word found")
        // Written again, as many bytes: the same words, none lost or added.
        #expect(second.shapeCacheFile(stamp: Self.stamp).count == file.count)
    }

    /// Restored into a cache that holds fewer words than the file, as many words are kept as
    /// it holds (the rest counted as skipped), and they lay out as the words shaped afresh
    /// do; with the cache off, none.
    @Test func aCacheSmallerThanTheFileKeepsWhatItHolds() throws {
        let first = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCacheEntries: 20_000)
        let sentences = ["alpha beta gamma delta", "epsilon zeta eta theta"]
        let expected = try sentences.map { try first.layout(request($0, "en")) }
        let small = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCacheEntries: 4)
        let restored = try small.restoreShapeCacheFile(first.shapeCacheFile(stamp: Self.stamp), stamp: Self.stamp)
        #expect(restored.kept == 4 && restored.skipped == first.shapeCache.count - 4, "\(restored)")
        #expect(small.shapeCache.count == 4)
        for (sentence, want) in zip(sentences, expected) {
            #expect(glyphs(try small.layout(request(sentence, "en"))) == glyphs(want), "\(sentence)")
        }
        let off = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCacheEntries: 0)
        #expect(try off.restoreShapeCacheFile(first.shapeCacheFile(stamp: Self.stamp), stamp: Self.stamp).kept == 0)
        #expect(off.shapeCache.count == 0)
    }

    /// A file of two words: "Hello " and "world".
    func smallFile() throws -> [UInt8] {
        let engine = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCacheEntries: 100)
        _ = try engine.layout(request("Hello world", "en"))
        #expect(engine.shapeCache.count == 2)
        return engine.shapeCacheFile(stamp: Self.stamp)
    }

    /// `file` with its checksum made right again after a change.
    func resealed(_ file: [UInt8]) -> [UInt8] {
        let h = FNV1a.hash(file.dropLast(8))
        return Array(file.dropLast(8)) + (0..<8).map { UInt8(truncatingIfNeeded: h >> UInt64(8 * $0)) }
    }

    func restoring(_ file: [UInt8], stamp: String = ShapeCacheFileTests.stamp) -> (ShapeCacheFileError?, Int) {
        let engine = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCacheEntries: 100)
        do {
            _ = try engine.restoreShapeCacheFile(file, stamp: stamp)
            return (nil, engine.shapeCache.count)
        } catch {
            return (error, engine.shapeCache.count)
        }
    }

    @Test func aFileCutShortOrChangedIsRefusedWhole() throws {
        let file = try smallFile()
        #expect(restoring(file).0 == nil && restoring(file).1 == 2)
        for length in 0..<file.count {
            let (error, kept) = restoring(Array(file[0..<length]))
            #expect(error != nil && kept == 0, "cut at \(length) of \(file.count)")
        }
        for at in stride(from: 0, to: file.count, by: 7) {
            var changed = file
            changed[at] ^= 0x10
            let (error, kept) = restoring(changed)
            #expect(error != nil && kept == 0, "byte \(at) changed")
        }
        #expect(restoring(Array("not a shape cache file at all".utf8)).0 == .notAShapeCacheFile)
        // Resealed, a value no layoutd writes: a glyph outside its face, a cluster outside its
        // word, bytes past the last word. (The last 28 bytes: the last glyph's id, cluster,
        // advance, offsets, then the checksum.)
        var glyph = file
        glyph.replaceSubrange((file.count - 28)..<(file.count - 24), with: [0x00, 0xFF, 0xFF, 0x7F])
        guard case .damaged(let reason)? = restoring(resealed(glyph)).0 else { Issue.record("a glyph outside its face read back"); return }
        #expect(reason.contains("not in its face"), "\(reason)")
        var cluster = file
        cluster.replaceSubrange((file.count - 24)..<(file.count - 20), with: [40, 0, 0, 0])
        guard case .damaged(let why)? = restoring(resealed(cluster)).0 else { Issue.record("a cluster outside its word read back"); return }
        #expect(why.contains("cluster"), "\(why)")
        // A font file the fonts do not list (the face's path with another extension).
        let ttf = Array(".ttf".utf8)
        if let at = (0..<(file.count - 4)).first(where: { Array(file[$0..<($0 + 4)]) == ttf }) {
            var otherFile = file
            otherFile.replaceSubrange(at..<(at + 4), with: Array(".xyz".utf8))
            guard case .damaged(let why)? = restoring(resealed(otherFile)).0 else { Issue.record("a file naming another font read back"); return }
            #expect(why.contains("font file the fonts do not list"), "\(why)")
        } else {
            Issue.record("no .ttf path in the file")
        }
        let longer = resealed(Array(file.dropLast(8)) + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 0])
        #expect(restoring(longer).1 == 0)
        if case .damaged = restoring(longer).0 {} else { Issue.record("bytes past the last word read back") }
    }

    @Test func aFileOfAnotherShaperOrOtherFontsIsNotUsed() throws {
        let file = try smallFile()
        guard case .otherShaper(let saved, let running)? = restoring(file, stamp: "layoutd 9.9").0 else {
            Issue.record("a file of another layoutd read back"); return
        }
        #expect(saved.contains(Self.stamp) && running.contains("layoutd 9.9"))
        // The font fingerprint follows the shaper's name: change one of its hex digits.
        let nameLength = Int(file[8]) | Int(file[9]) << 8 | Int(file[10]) << 16 | Int(file[11]) << 24
        let fingerprintAt = 12 + nameLength + 4
        var other = file
        other[fingerprintAt] = other[fingerprintAt] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        #expect(restoring(resealed(other)).0 == .fontsChanged)
        #expect(restoring(resealed(other)).1 == 0)
    }
}
