import LayoutEngine
import LayoutProtocol
import LayoutTransport

/// `stats`: what the daemon holds and has done, as counters a person can read.
extension LayoutService {
    /// `stats`: counters a person can read.
    func stats() -> JSONValue {
        let fontCaches = engine.fonts.cacheCounts
        let lookups = engine.fonts.cacheLookups
        let retained = store.counts
        let served = connectionsReport.withLock { $0 }?() ?? ConnectionsReport()
        return [
            "server": ["name": .string(Self.serverName), "version": .string(Self.serverVersion), "node": .string(store.node),
                       "uptimeSeconds": .number((MonotonicClock.now() - statistics.started).rounded())],
            "connections": ["open": .number(Double(served.open)),
                            "limit": .number(Double(configuration.maxConnections)),
                            "perLoop": .array(served.perLoop.map { .number(Double($0)) }),
                            "moved": .number(Double(served.moved))],
            "requests": statistics.json,
            "caches": [
                "fallbackLists": Self.cacheJSON(count: fontCaches.fallbackLists, lookups.fallbackLists),
                "fontFaces": Self.cacheJSON(count: fontCaches.faces, lookups.faces),
                "shapedWords": .object((Self.cacheJSON(count: engine.shapeCache.count, engine.shapeCache.lookupCounts).objectMembers ?? [])
                                       + [("maxCount", .number(Double(engine.shapeCache.capacity))),
                                          ("shapedTogether", .number(Double(engine.shapeCache.wordsShapedTogether))),
                                          ("restored", .number(Double(engine.shapeCache.wordsRestored)))]),
                "measuredParagraphs": .object((Self.cacheJSON(count: engine.measuredParagraphs.count,
                                                              engine.measuredParagraphs.lookupCounts).objectMembers ?? [])
                                              + [("maxCount", .number(Double(engine.measuredParagraphs.capacity)))]),
                "hyphenatedWords": hyphenationJSON(),
                "retainedLayouts": .object((Self.cacheJSON(count: retained.count, store.lookups.snapshot).objectMembers ?? []) + [
                    ("bytes", .number(Double(retained.bytes))), ("shapingBytes", .number(Double(retained.shapingBytes))),
                    ("pieces", .number(Double(retained.pieces))),
                    ("evicted", .number(Double(retained.evicted))),
                    ("maxCount", .number(Double(configuration.maxRetainedLayouts))),
                    ("maxBytes", .number(Double(configuration.maxRetainedBytes)))]),
            ],
            "fonts": ["faces": .number(Double(engine.fonts.fontCount)),
                      "fingerprint": .string(engine.fonts.fingerprint),
                      "fingerprintParts": .object(engine.fonts.fingerprintWithParts.parts.map { ($0.name, .string($0.value)) }),
                      "configuration": engine.fonts.fontConfigPath.map { .string($0) } ?? .null,
                      "skippedFiles": .array(engine.fonts.skippedFiles.prefix(100).map { .string($0) }),
                      "families": .array(engine.fonts.families.map { .string($0) })],
            "plugins": plugins.statsJSON,
            "memory": ["residentBytes": Statistics.residentBytes().map { .number(Double($0)) } ?? .null],
        ]
    }

    /// The words `hyphenation: auto` looked up, kept with their break points, and the
    /// dictionaries loaded.
    private func hyphenationJSON() -> JSONValue {
        let hyphenator = engine.hyphenator, counts = hyphenator.counts
        let lookups = CacheLookups(hits: counts.hits, misses: counts.misses)
        return .object((Self.cacheJSON(count: counts.cachedWords, lookups).objectMembers ?? [])
                       + [("maxCount", .number(Double(hyphenator.capacity))),
                          ("dictionaries", .number(Double(counts.dictionaries)))])
    }

    /// `{count, hits, misses, hitRate}` of a cache (`hitRate` null before the first lookup).
    static func cacheJSON(count: Int, _ lookups: CacheLookups) -> JSONValue {
        ["count": .number(Double(count)), "hits": .number(Double(lookups.hits)), "misses": .number(Double(lookups.misses)),
         "hitRate": lookups.hitRate.map { .number(($0 * 1000).rounded() / 1000) } ?? .null]
    }

}
