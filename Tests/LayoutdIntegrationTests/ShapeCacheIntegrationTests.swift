import Foundation
import Testing
import LayoutProtocol

/// The shape cache through the real socket: a daemon with it on breaks every corpus
/// paragraph's lines where one with it off does (every run shaped whole), the first time and
/// when the words come from the cache, and its `stats` show the words found.
@Suite("Shape cache through the socket")
struct ShapeCacheIntegrationTests {
    @Test func cachedWordsGiveTheSameLinesAsNoCache() throws {
        let cached = try Daemon()
        defer { cached.stop() }
        let uncached = try Daemon(limits: #"{"shapeCacheEntries": 0}"#)
        defer { uncached.stop() }
        let a = try cached.connect(), b = try uncached.connect()
        let corpus = try loadCorpus()
        var compared = 0
        // The first width fills the cache; the others are answered from it.
        for width in [360.0, 300.0, 212.5] {
            for p in corpus {
                let params: JSONValue = ["text": .string(p.text), "width": .number(width)]
                let got = try a.result("layout", params), expected = try b.result("layout", params)
                // Where lines break (widths may differ in the last digit: advances are added
                // word by word rather than run by run).
                func breaks(_ r: JSONValue) -> [[Int]] {
                    (r["lines"]?.arrayValue ?? []).map { [$0["start"]?.intValue ?? -1, $0["end"]?.intValue ?? -1] }
                }
                #expect(breaks(got).count > 0)
                #expect(breaks(got) == breaks(expected), "\(p.id) at width \(width): the cached daemon breaks lines elsewhere")
                compared += breaks(got).count
            }
        }
        #expect(compared > 3000)
        let shaped = try a.result("stats")["caches"]?["shapedWords"]
        #expect((shaped?["hits"]?.intValue ?? 0) > 40_000, "shaped words found: \(String(describing: shaped))")
        #expect((shaped?["count"]?.intValue ?? 0) > 1000)
        #expect(shaped?["maxCount"] == 20_000)
        #expect((shaped?["shapedTogether"]?.intValue ?? 0) > (shaped?["misses"]?.intValue ?? 0) / 2,
                "most missing words shaped with others: \(String(describing: shaped))")
        let off = try b.result("stats")["caches"]?["shapedWords"]
        #expect(off?["count"] == 0 && off?["hits"] == 0 && off?["maxCount"] == 0 && off?["shapedTogether"] == 0)
    }

    /// A paragraph of words the daemon has not seen comes back the same whether its missing
    /// words are shaped together (the first time) or found one by one in the cache (asked
    /// again) — every glyph, cluster, advance and offset — and `stats` counts the words shaped
    /// together. (That they equal each word shaped alone, the engine's tests check.)
    @Test func wordsShapedTogetherGiveTheGlyphsTheCacheGivesBack() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let corpus = try loadCorpus()
        for p in corpus where ["en", "ar", "hi", "th", "ja"].contains(p.lang) {
            let params: JSONValue = ["text": .string(p.text), "width": 300, "detail": "glyphs", "language": .string(p.lang)]
            let before = try client.result("stats")["caches"]?["shapedWords"]?["shapedTogether"]?.intValue ?? 0
            let first = try client.result("layout", params)
            let after = try client.result("stats")["caches"]?["shapedWords"]?["shapedTogether"]?.intValue ?? 0
            let again = try client.result("layout", params)
            #expect(first == again, "\(p.id): glyphs shaped together differ from the cache's")
            #expect((first["lines"]?.arrayValue?.count ?? 0) > 0)
            if p.id.hasSuffix("-0") { #expect(after > before, "\(p.id): some of its new words shaped together") }
        }
        let shaped = try client.result("stats")["caches"]?["shapedWords"]
        #expect((shaped?["shapedTogether"]?.intValue ?? 0) > 100, "\(String(describing: shaped))")
    }
}
