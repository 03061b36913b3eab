import Synchronization

/// The sizes of plain paragraphs measured lately (`TextLayoutEngine.measurePlainParagraph`),
/// by everything a size depends on: the text, the width, the style, the language and the
/// paragraph settings that reach a line's end or height. A chat backend measures the same
/// messages again and again (each list drawn, each bubble sized); a message found here costs
/// a lookup, not shaping and filling its lines.
///
/// A request is known by two 64-bit hashes of all of that (`Fingerprint`): a quick one that
/// places it, and one keyed with this process's random seed (Swift's `Hasher`, SipHash) that
/// must match too, so that no client can make texts that collide with another's. An entry
/// holds the two and the size, nothing the heap must keep: keeping a size allocates nothing
/// and frees nothing. Entries live in shards with their own locks, each in one of the eight
/// slots of the set its quick hash names (a new one replaces one of the set's older ones): a
/// lookup or a keep reads one set, whatever is kept. Bounded; thread-safe. (`@unchecked
/// Sendable`: the shards are reached through a block this table owns, each behind its lock.)
public final class MeasuredParagraphs: @unchecked Sendable {
    /// Longest text looked up and kept, in UTF-16 units: messages, not documents (a longer
    /// text costs more to hash, and is seldom measured again unchanged).
    public static let maxTextLength = 256
    private static let shardCount = 8
    private static let ways = 8

    /// What a request is known by: `place` (FNV-1a, never 0) and `check` (keyed).
    struct Fingerprint: Equatable {
        var place: UInt64
        var check: UInt64
    }

    /// One shard's slots (sets of `ways`, a power of two of sets): each one's fingerprint
    /// (`place` 0: empty), size and when it was last used (by the shard's clock); how many
    /// hold a size, and the shard's lookups (counted under the lock taken anyway: no counter
    /// written by every thread).
    struct Shard {
        var prints: [Fingerprint]
        var sizes: [MeasuredSize]
        var used: [UInt64]
        var clock: UInt64 = 0
        var count = 0
        var lookups = CacheLookups(hits: 0, misses: 0)

        init(slots count: Int) {
            prints = [Fingerprint](repeating: Fingerprint(place: 0, check: 0), count: count)
            sizes = [MeasuredSize](repeating: MeasuredSize(width: 0, height: 0, lineCount: 0), count: count)
            used = [UInt64](repeating: 0, count: count)
        }

        /// The size kept in set `set` for `print`, marked used; counted.
        mutating func find(_ print: Fingerprint, set: Int) -> MeasuredSize? {
            for slot in set..<(set + ways) where prints[slot] == print {
                clock += 1
                used[slot] = clock
                lookups.hits += 1
                return sizes[slot]
            }
            lookups.misses += 1
            return nil
        }

        /// Keeps `size` for `print` in set `set`: in place of its own entry, else in an empty
        /// slot, else in place of the less recently used of two slots `print` picks. (Not the
        /// set's least recently used: messages asked again in the order they came would each
        /// push out the next one asked.)
        mutating func keep(_ size: MeasuredSize, for print: Fingerprint, set: Int) {
            var slot = -1
            for s in set..<(set + ways) where prints[s].place == 0 || prints[s] == print {
                slot = s
                break
            }
            if slot < 0 {
                let a = set + Int(truncatingIfNeeded: print.place >> 40) % ways
                let b = set + Int(truncatingIfNeeded: print.place >> 48) % ways
                slot = used[a] <= used[b] ? a : b
            }
            if prints[slot].place == 0 { count += 1 }
            clock += 1
            prints[slot] = print
            sizes[slot] = size
            used[slot] = clock
        }
    }

    private let shards: UnsafeMutablePointer<Mutex<Shard>>
    private let setMask: Int
    /// Slots in all (0: none kept, nothing looked up).
    public let capacity: Int

    /// `capacity`: sizes kept at most, rounded up to a power of two of sets per shard (0: none).
    public init(capacity: Int) {
        var sets = capacity > 0 ? 1 : 0
        while sets * Self.ways * Self.shardCount < capacity { sets <<= 1 }
        self.capacity = sets * Self.ways * Self.shardCount
        setMask = max(0, sets - 1)
        shards = .allocate(capacity: Self.shardCount)
        for i in 0..<Self.shardCount {
            (shards + i).initialize(to: Mutex(Shard(slots: sets * Self.ways)))
        }
    }

    deinit {
        shards.deinitialize(count: Self.shardCount)
        shards.deallocate()
    }

    public var count: Int { (0..<Self.shardCount).reduce(0) { total, i in total + shards[i].withLock { $0.count } } }
    public var lookupCounts: CacheLookups {
        (0..<Self.shardCount).reduce(CacheLookups(hits: 0, misses: 0)) { total, i in
            let counted = shards[i].withLock { $0.lookups }
            return CacheLookups(hits: total.hits + counted.hits, misses: total.misses + counted.misses)
        }
    }

    /// What `request` is known by here, or nil when it is not looked up or kept (the table
    /// off, or the text too long). `settings`: `settingsDigest(request)`, when the caller
    /// has it (measuring text after text in one style, it finds it once).
    func fingerprint(_ request: LayoutRequest, settings: Int? = nil) -> Fingerprint? {
        guard capacity > 0, request.text.count <= Self.maxTextLength else { return nil }
        return Fingerprint(place: Self.placeHash(request),
                           check: Self.checkHash(request, settings: settings ?? Self.settingsDigest(request)))
    }

    /// The shard and set of a fingerprint (the set's first slot): the low bits of `place`
    /// pick the shard, the next ones the set.
    private func location(_ print: Fingerprint) -> (shard: Int, set: Int) {
        (Int(print.place % UInt64(Self.shardCount)), (Int(truncatingIfNeeded: print.place >> 8) & setMask) * Self.ways)
    }

    /// The size kept for `print`, counted as a hit or a miss.
    func size(_ print: Fingerprint) -> MeasuredSize? {
        let (shard, set) = location(print)
        return shards[shard].withLock { $0.find(print, set: set) }
    }

    func keep(_ size: MeasuredSize, for print: Fingerprint) {
        let (shard, set) = location(print)
        shards[shard].withLock { $0.keep(size, for: print, set: set) }
    }

    /// FNV-1a over the text's units, then the width, the font, the language and the
    /// paragraph settings, mixed at the end (splitmix64's finalizer) so that every bit
    /// depends on every unit: where an entry goes. Never 0 (an empty slot).
    static func placeHash(_ request: LayoutRequest) -> UInt64 {
        var h: UInt64 = 0xcbf29ce484222325
        @inline(__always) func mix(_ v: UInt64) { h = (h ^ v) &* 0x100000001b3 }
        @inline(__always) func mix(_ d: Double?) { mix((d ?? -1).bitPattern) }
        request.text.withUnsafeBufferPointer { for u in $0 { mix(UInt64(u)) } }
        let font = request.styles[0].font, style = request.paragraph
        mix(request.width)
        mix(font.size)
        mix(style.lineHeightMultiple)
        mix(style.minimumLineHeight)
        mix(style.maximumLineHeight)
        mix(UInt64(bitPattern: Int64(font.weight)))
        mix(UInt64(request.language.utf8.count))
        h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
        h ^= h >> 31
        return h == 0 ? 1 : h
    }

    /// Everything a size depends on, hashed with this process's seed: the text's bytes, the
    /// width and the settings (`settingsDigest`).
    static func checkHash(_ request: LayoutRequest, settings: Int) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(request.text.count)
        request.text.withUnsafeBytes { hasher.combine(bytes: $0) }
        hasher.combine(request.width)
        hasher.combine(settings)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    /// What a size depends on besides the text and the width, hashed with this process's
    /// seed: the whole style (font with its features and axes, spacing, baseline offset), the
    /// language, and the direction, wrapping, hyphenation and line height settings.
    public static func settingsDigest(_ request: LayoutRequest) -> Int {
        var hasher = Hasher()
        hasher.combine(request.styles.first)
        hasher.combine(request.language)
        let style = request.paragraph
        hasher.combine(style.direction)
        hasher.combine(style.wrap)
        hasher.combine(style.hyphenation)
        hasher.combine(style.lineHeightMultiple)
        hasher.combine(style.minimumLineHeight)
        hasher.combine(style.maximumLineHeight)
        return hasher.finalize()
    }
}
