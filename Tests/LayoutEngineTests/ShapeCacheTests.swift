import TestSupport
import Foundation
import Testing
@testable import LayoutEngine

/// The shape cache (words shaped once, looked up after) against shaping every run whole:
/// same lines, same glyphs, in every script of the corpus.
@Suite("Shape cache")
struct ShapeCacheTests {
    static let uncached: TextLayoutEngine = {
        do {
            return TextLayoutEngine(fonts: try FontSystem(fontConfigPath: "\(repositoryRoot)/config/fonts.conf"), shapeCacheEntries: 0)
        } catch {
            preconditionFailure("pinned fonts unavailable (run scripts/setup): \(error)")
        }
    }()

    static func corpus() throws -> [(lang: String, text: String)] {
        let path = ProcessInfo.processInfo.environment["LAYOUTD_CORPUS"]
            ?? "\(repositoryRoot)/Tests/Corpus/paragraphs.jsonl"
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        return try lines.map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return (object?["lang"] as? String ?? "", object?["text"] as? String ?? "")
        }
    }

    @Test func cachedShapingMatchesWholeRunShaping() throws {
        let cached = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCacheEntries: 5000)
        var lines = 0, differentBreaks = 0, differentGlyphs = 0
        var examples: [String] = []
        for (lang, text) in try Self.corpus() {
            for pass in 0..<2 {   // the second pass is served from the cache
                let request = LayoutRequest(text: utf16(text), width: 360, font: FontDescriptor(family: "Noto Sans", size: 16),
                                            language: lang, detail: .glyphs)
                let a = try cached.layout(request), b = try Self.uncached.layout(request)
                lines += b.lines.count
                if a.lines.map({ [$0.start, $0.end] }) != b.lines.map({ [$0.start, $0.end] }) {
                    differentBreaks += 1
                    if examples.count < 5 { examples.append("\(lang) pass \(pass): breaks differ") }
                    continue
                }
                for (la, lb) in zip(a.lines, b.lines) {
                    let ga = la.runs.flatMap { $0.glyphs.map { [Double($0.id), Double($0.cluster), ($0.advance * 100).rounded()] } }
                    let gb = lb.runs.flatMap { $0.glyphs.map { [Double($0.id), Double($0.cluster), ($0.advance * 100).rounded()] } }
                    if ga != gb {
                        differentGlyphs += 1
                        if examples.count < 5 { examples.append("\(lang) pass \(pass): glyphs differ on a line") }
                    }
                }
            }
        }
        #expect(differentBreaks == 0, "\(examples)")
        #expect(differentGlyphs == 0, "\(examples)")
        #expect(lines > 1000)
        #expect(cached.shapeCache.lookupCounts.hits > cached.shapeCache.lookupCounts.misses, "the second pass hits")
    }

    /// A layout that reads no glyphs (lines only, nothing kept) takes its words' advances
    /// straight from the shape cache, copying no glyphs out: its lines are exactly those of a
    /// layout that reads them (every box field), over the whole corpus at three widths, with
    /// its words missing (the first pass) and found (the next), and break where a layout
    /// without the cache breaks (whose advances, never rounded to the cache's `Float`, may
    /// differ in the last bits).
    @Test func aLayoutReadingNoGlyphsAddsAdvancesFromTheCache() throws {
        let cached = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCacheEntries: 20_000)
        var lines = 0, different: [String] = []
        for width in [360.0, 97.5, 1000] {
            for (lang, text) in try Self.corpus() {
                for pass in 0..<2 {
                    func request(_ detail: LayoutDetail) -> LayoutRequest {
                        LayoutRequest(text: utf16(text), width: width + Double(pass) * 0.01,
                                      font: FontDescriptor(family: "Noto Sans", size: 16), language: lang, detail: detail)
                    }
                    let plain = try cached.layout(request(.lines))
                    let full = try cached.layout(request(.glyphs))
                    let uncached = try Self.uncached.layout(request(.lines))
                    lines += plain.lines.count
                    let boxes = { (layout: TextLayout) in
                        layout.lines.map { l -> [Double] in
                            [Double(l.start), Double(l.end), l.x, l.y, l.width, l.height, l.baseline, l.ascent, l.descent]
                        }
                    }
                    let breaks = { (layout: TextLayout) in layout.lines.map { [$0.start, $0.end] } }
                    if boxes(plain) != boxes(full) || breaks(plain) != breaks(uncached), different.count < 5 {
                        different.append("\(lang) at \(width), pass \(pass)")
                    }
                }
            }
        }
        #expect(different.isEmpty, "\(different)")
        #expect(lines > 3000)
        #expect(cached.shapeCache.lookupCounts.hits > 10 * cached.shapeCache.lookupCounts.misses)
    }

    /// Missing words shaped together in one call and cut apart where HarfBuzz marks the cut
    /// safe give exactly what shaping each alone gives — every glyph, cluster, advance and
    /// offset of every line, in every script of the corpus, right-to-left ones included — and
    /// the words kept are the same, found the same on the next pass.
    @Test func missingWordsShapedTogetherMatchEachShapedAlone() throws {
        let together = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCache: ShapeCache(capacity: 50_000, shapingMissingWordsTogether: true))
        let alone = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCache: ShapeCache(capacity: 50_000, shapingMissingWordsTogether: false))
        var different: [String] = []
        var glyphs = 0
        for pass in 0..<2 {
            for (lang, text) in try Self.corpus() {
                for width in [360.0, 97.5] {
                    let request = LayoutRequest(text: utf16(text), width: width, font: FontDescriptor(family: "Noto Sans", size: 16),
                                                language: lang, detail: .glyphs)
                    let a = try together.layout(request), b = try alone.layout(request)
                    if a.lines != b.lines, different.count < 5 { different.append("\(lang) at \(width), pass \(pass): \(text.prefix(40))") }
                    glyphs += a.lines.reduce(0) { $0 + $1.runs.reduce(0) { $0 + $1.glyphs.count } }
                }
            }
        }
        #expect(different.isEmpty, "\(different)")
        #expect(glyphs > 200_000)
        let counts = together.shapeCache.lookupCounts, aloneCounts = alone.shapeCache.lookupCounts
        // As many lookups (a word met twice among the missing words shaped together counts as
        // missing both times: it was shaped both times), and the same words kept.
        #expect(counts.hits + counts.misses == aloneCounts.hits + aloneCounts.misses)
        #expect(counts.hits <= aloneCounts.hits && counts.hits * 100 > aloneCounts.hits * 98, "\(counts) vs \(aloneCounts)")
        #expect(together.shapeCache.count == alone.shapeCache.count)
        #expect(together.shapeCache.wordsShapedTogether > counts.misses / 2, "most missing words are shaped with others")
        #expect(alone.shapeCache.wordsShapedTogether == 0)
    }

    /// An entry is one cache line's size, as its layout promises (a field added or moved
    /// that pads it shows here), and lies on one: the shard's entries start 64-byte aligned.
    @Test func anEntryIsSixtyFourBytes() {
        #expect(MemoryLayout<ShapeCache.Shard.Entry>.size == 64)
        #expect(MemoryLayout<ShapeCache.Shard.Entry>.stride == 64)
        for capacity in [8, 100, 1250] {
            let shard = ShapeCache.Shard(capacity: capacity)
            #expect(UInt(bitPattern: shard.entriesAddress) % 64 == 0, "capacity \(capacity)")
        }
    }

    @Test func theCacheIsBounded() throws {
        let small = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCacheEntries: 160)
        var words: [String] = []
        for i in 0..<2000 { words.append("w\(i)x") }
        _ = try small.layout(LayoutRequest(text: utf16(words.joined(separator: " ")), width: 300))
        #expect(small.shapeCache.count <= 160)
        #expect(small.shapeCache.count > 0)
    }

    /// Eviction moves the saved words' glyphs and long texts together in the shard's stores:
    /// after many rounds of it, every word still kept gives back exactly its own glyphs (long
    /// words, kept in the text store, too), and the shard stays within its capacity.
    @Test func evictionKeepsEachWordsOwnGlyphs() throws {
        var shard = ShapeCache.Shard(capacity: 64)
        func word(_ i: Int) -> [UInt16] {
            Array((i % 3 == 0 ? "a long word number \(i) past sixteen units" : "w\(i) ").utf16)
        }
        func glyphs(_ i: Int) -> [ShapedGlyph] {
            (0..<(1 + i % 5)).map { ShapedGlyph(id: UInt32(i * 10 + $0), cluster: Int32($0), advance: Float(i), xOffset: 0, yOffset: 0) }
        }
        func hash(_ i: Int) -> UInt64 { UInt64(i) &* 0x9E37_79B9_7F4A_7C15 }
        for i in 0..<1000 {
            let units = word(i)
            units.withUnsafeBufferPointer { shard.insert(hash(i), 1, 0, $0, ShapeCache.Packed($0), glyphs(i)[...]) }
            #expect(shard.count <= 64)
        }
        var kept = 0
        for i in 0..<1000 {
            let units = word(i)
            units.withUnsafeBufferPointer { text in
                if let found = shard.find(hash(i), 1, 0, text, ShapeCache.Packed(text)) {
                    kept += 1
                    #expect(found == glyphs(i), "word \(i)")
                }
            }
        }
        #expect(kept > 32, "the most recent words are kept")
        // The last word inserted is always among them.
        let last = word(999)
        last.withUnsafeBufferPointer { #expect(shard.find(hash(999), 1, 0, $0, ShapeCache.Packed($0)) == glyphs(999)) }
    }

    /// A shard told the same hash for different words (as a collision would) keeps them
    /// apart: words are compared whole — in place up to 16 units, from their kept text past
    /// that — and by context and paragraph-edge flags.
    @Test func wordsWithTheSameHashStayApart() throws {
        var shard = ShapeCache.Shard(capacity: 64)
        func glyph(_ id: UInt32) -> [ShapedGlyph] { [ShapedGlyph(id: id, cluster: 0, advance: 1, xOffset: 0, yOffset: 0)] }
        let words = ["word ", "wore ", "a", "b", String(repeating: "long", count: 5) + "x", String(repeating: "long", count: 5) + "y",
                     "sixteen units ok", "sixteen units oK", String(repeating: "z", count: 40)]
        let hash: UInt64 = 0xDEAD_BEEF_0000_0001
        for (i, word) in words.enumerated() {
            let units = Array(word.utf16)
            units.withUnsafeBufferPointer { text in
                shard.insert(hash, 7, 0, text, ShapeCache.Packed(text), glyph(UInt32(i))[...])
            }
        }
        for (i, word) in words.enumerated() {
            let units = Array(word.utf16)
            units.withUnsafeBufferPointer { text in
                let packed = ShapeCache.Packed(text)
                #expect(shard.find(hash, 7, 0, text, packed)?.first?.id == UInt32(i), "\(word)")
                #expect(shard.find(hash, 8, 0, text, packed) == nil, "another context: \(word)")
                #expect(shard.find(hash, 7, 1, text, packed) == nil, "another flag: \(word)")
                #expect(shard.find(hash ^ 1 << 40, 7, 0, text, packed) == nil, "another hash: \(word)")
            }
        }
        let unseen = Array("worf ".utf16)
        unseen.withUnsafeBufferPointer { text in
            #expect(shard.find(hash, 7, 0, text, ShapeCache.Packed(text)) == nil)
        }
    }
}
