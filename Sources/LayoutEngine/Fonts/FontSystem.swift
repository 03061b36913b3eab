import CFontconfig
import Synchronization

/// The warm font state shared by every request: the fontconfig configuration, the fallback
/// lists per (family, weight, style, language) and the opened faces per file.
/// Both caches are bounded by count; entries are evicted oldest first.
///
/// Thread-safe; make one per daemon and share it.
public final class FontSystem: Sendable {
    private let configuration: FontConfiguration
    private let fallbackLists: Mutex<BoundedCache<FallbackKey, FallbackList>>
    private let faces: FaceLoader
    /// Serializes fontconfig's matching and sorting, which run only on cache misses.
    private let fontconfigLock = FontconfigLock()

    struct FallbackKey: Hashable { var selection: FontDescriptor.SelectionKey; var language: String }

    /// Loads the fontconfig file at `fontConfigPath` (nil: the system configuration).
    /// Fails when fontconfig cannot load it. `report` hears each font file that cannot be
    /// used, once per file: those fontconfig skipped in its folders (empty, truncated, not a
    /// font) now, and faces that fail to open later (gone, damaged); requests then fall back
    /// to the next font.
    /// `fingerprintParts`: what else decides the daemon's answers, for the fingerprint
    /// (`FontFingerprint`).
    public init(fontConfigPath: String?, maxFallbackLists: Int = 256, maxFaces: Int = 512,
                fingerprintParts: [FingerprintPart] = [], report: (@Sendable (String) -> Void)? = nil) throws {
        configuration = try FontConfiguration(path: fontConfigPath)
        fingerprintWithParts = FontFingerprint(configuration: configuration, callerParts: fingerprintParts)
        fingerprint = fingerprintWithParts.value
        fontFiles = configuration.fontFiles
        fallbackLists = Mutex(BoundedCache(capacity: maxFallbackLists))
        faces = FaceLoader(capacity: maxFaces, report: report)
        skippedFiles = configuration.skippedFiles(known: fontFiles)
        for file in skippedFiles {
            report?("font file \(file) skipped: fontconfig cannot read it (empty, truncated or not a font)")
        }
    }

    /// Files with a font's extension in the configured font folders that fontconfig did not
    /// take (at most 1000).
    public let skippedFiles: [String]

    /// Identifies what decides the answers: the faces' content, the fontconfig rules, the
    /// libraries' versions (`FontFingerprint`); not where the fonts live or when they came.
    public let fingerprint: String
    /// The fingerprint with the parts it hashes.
    public let fingerprintWithParts: FontFingerprint

    /// The files of every face the configuration lists (a shape cache file naming another is
    /// not read back).
    let fontFiles: Set<String>

    /// The fontconfig file in use, or nil for the system's.
    public var fontConfigPath: String? { configuration.path }

    /// How many font faces the configuration knows.
    public var fontCount: Int { configuration.fontCount }
    /// The font families requests may name (sorted).
    public var families: [String] { configuration.families }

    /// Cached entries: fallback lists and opened faces.
    public var cacheCounts: (fallbackLists: Int, faces: Int) {
        (fallbackLists.withLock { $0.count }, faces.count)
    }

    /// Lookups that found their entry, and those that had to make it, since start.
    public var cacheLookups: (fallbackLists: CacheLookups, faces: CacheLookups) {
        (fallbackLookups.snapshot, faces.lookups.snapshot)
    }
    private let fallbackLookups = CacheLookupCounter()

    /// The fallback list for a descriptor and language ("" for none), matched once per key
    /// and sorted when first needed, or at once if `sortNow` (see `FallbackList`). Fails with
    /// `noFontsAvailable` when fontconfig has no font for it.
    func fallbackList(for descriptor: FontDescriptor, language: String, sortNow: Bool = false) throws -> FallbackList {
        let key = FallbackKey(selection: descriptor.selectionKey, language: language)
        if let list = fallbackLists.withLock({ $0[key] }) {
            countFallbackLookup(found: true)
            return list
        }
        countFallbackLookup(found: false)
        let list = try FallbackList(config: configuration, descriptor: key.selection, language: language, loader: faces,
                                    lock: fontconfigLock, sortNow: sortNow)
        return fallbackLists.withLock { cache in
            if let existing = cache[key] { return existing }
            cache[key] = list
            return list
        }
    }

    /// The face at `identity`, opening it on first use.
    func face(_ identity: FaceIdentity) throws -> FontFace { try faces.face(identity) }

    /// The fallback decisions per code point for one family (selection key) and language,
    /// shared by every request (a CJK paragraph need not learn each ideograph's font again).
    func scalarFaces(for key: FontDescriptor.SelectionKey, language: String) -> ScalarFaces {
        let tableKey = ScalarTableKey(selection: key, language: language)
        return scalarFaceTables.withLock { tables in
            if let known = tables[tableKey] { return known }
            if tables.count >= 256 { tables.removeAll() }   // bounded; rebuilt as used
            let made = ScalarFaces()
            tables[tableKey] = made
            return made
        }
    }
    private struct ScalarTableKey: Hashable { var selection: FontDescriptor.SelectionKey; var language: String }
    private let scalarFaceTables = Mutex<[ScalarTableKey: ScalarFaces]>([:])
    /// The families requests started from last (see `familyStart`), most recent last.
    let recentFamilyStarts = Mutex<[FamilyStart]>([])
    /// Counts `familyStart`'s lookups as fallback-list lookups (what each stands for).
    func countFallbackLookup(found: Bool) { found ? fallbackLookups.hit() : fallbackLookups.miss() }
}

/// The face chosen for each code point, and each short cluster, of one family and language
/// with its script, shared by every request. A key is two words, as `RecentFaces`'s: the
/// code point and the script, or the cluster's units and its script and length. An
/// open-addressing table (a multiply-shift hash, no `Hasher`), grown by doubling; bounded
/// (65,536 entries, then cleared and rebuilt as used). Thread-safe.
final class ScalarFaces: Sendable {
    private struct Table {
        /// Keys per slot, `empty` where none; the slot's face as 1 + its index in `faces`.
        var keys: [(UInt64, UInt64)] = []
        var slots: [UInt16] = []
        var faces: [FontFace] = []
        var count = 0
        static let empty: (UInt64, UInt64) = (.max, .max)
        static let maxCount = 65_536

        func slot(_ a: UInt64, _ b: UInt64) -> Int {
            Int(truncatingIfNeeded: mixFaceKey(a, b) >> 40) & (keys.count - 1)
        }

        func find(_ a: UInt64, _ b: UInt64) -> FontFace? {
            guard !keys.isEmpty else { return nil }
            return keys.withUnsafeBufferPointer { keys in
                var i = slot(a, b)
                while true {
                    let k = keys[i]
                    if k == (a, b) { return faces[Int(slots[i]) - 1] }
                    if k == Self.empty { return nil }
                    i = (i + 1) & (keys.count - 1)
                }
            }
        }

        mutating func insert(_ face: FontFace, _ a: UInt64, _ b: UInt64) {
            if count >= Self.maxCount { self = Table() }
            if (count + 1) * 2 > keys.count { grow() }
            var number = faces.firstIndex { $0 === face }
            if number == nil {
                // Faces a family falls back to are few; past 65,535 the table starts over.
                if faces.count >= Int(UInt16.max) { self = Table(); grow() }
                faces.append(face)
                number = faces.count - 1
            }
            var i = slot(a, b)
            while keys[i] != Self.empty, keys[i] != (a, b) { i = (i + 1) & (keys.count - 1) }
            if keys[i] == Self.empty { count += 1 }
            keys[i] = (a, b)
            slots[i] = UInt16(number! + 1)
        }

        private mutating func grow() {
            let old = keys, oldSlots = slots
            let size = max(256, keys.count * 2)
            keys = [(UInt64, UInt64)](repeating: Self.empty, count: size)
            slots = [UInt16](repeating: 0, count: size)
            for (j, k) in old.enumerated() where k != Self.empty {
                var i = slot(k.0, k.1)
                while keys[i] != Self.empty { i = (i + 1) & (size - 1) }
                keys[i] = k
                slots[i] = oldSlots[j]
            }
        }
    }
    private let table = Mutex<Table>(Table())

    /// The face kept for key (`a`, `b`), if any.
    func face(_ a: UInt64, _ b: UInt64) -> FontFace? {
        table.withLock { $0.find(a, b) }
    }

    /// Keeps `face` for key (`a`, `b`).
    func set(_ face: FontFace, _ a: UInt64, _ b: UInt64) {
        table.withLock { $0.insert(face, a, b) }
    }
}

/// Opens font faces once and keeps them, bounded by count. Thread-safe.
final class FaceLoader: Sendable {
    private let faces: Mutex<BoundedCache<FaceIdentity, FontFace>>
    private let report: (@Sendable (String) -> Void)?
    /// Files already reported as unusable (reported once each).
    private let reported = Mutex<Set<String>>([])

    init(capacity: Int, report: (@Sendable (String) -> Void)? = nil) {
        faces = Mutex(BoundedCache(capacity: capacity))
        self.report = report
    }

    var count: Int { faces.withLock { $0.count } }
    let lookups = CacheLookupCounter()

    /// The face at `identity`, opening it on first use; fails when the file is unreadable.
    func face(_ identity: FaceIdentity) throws -> FontFace {
        if let face = faces.withLock({ $0[identity] }) {
            lookups.hit()
            return face
        }
        lookups.miss()
        let face: FontFace
        do { face = try FontFace(identity: identity) } catch {
            if let report, reported.withLock({ $0.count < 10_000 && $0.insert(identity.path).inserted }) {
                report("font file \(identity.path) (face \(identity.index)) cannot be used: \(error); requests fall back to the next font")
            }
            throw error
        }
        return faces.withLock { cache in
            if let existing = cache[identity] { return existing }
            cache[identity] = face
            return face
        }
    }
}

/// How a cache's lookups went: found, or made.
public struct CacheLookups: Sendable, Equatable {
    public var hits: Int
    public var misses: Int
    public init(hits: Int, misses: Int) { self.hits = hits; self.misses = misses }
    /// Hits over all lookups; nil before the first.
    public var hitRate: Double? { hits + misses == 0 ? nil : Double(hits) / Double(hits + misses) }
}

/// Counts a cache's hits and misses from any thread.
public final class CacheLookupCounter: Sendable {
    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)
    public init() {}
    public func hit() { hits.wrappingAdd(1, ordering: .relaxed) }
    public func miss() { misses.wrappingAdd(1, ordering: .relaxed) }
    public var snapshot: CacheLookups { CacheLookups(hits: hits.load(ordering: .relaxed), misses: misses.load(ordering: .relaxed)) }
}
