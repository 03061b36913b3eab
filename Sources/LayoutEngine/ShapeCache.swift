import Glibc
import Synchronization

/// Shaped words, kept across requests (as Android's Minikin keeps its layout cache): the
/// glyphs of a short stretch of text — a word with the spaces after it — in one face, size,
/// axes, features, script, direction and language. Words repeat across paragraphs and across
/// requests (a window resized, a list relaid out), so most shaping becomes a lookup.
///
/// Bounded by entry count (the least recently used eighth evicted when full), split into 16
/// shards with their own locks so worker threads rarely wait on each other. A lookup hashes
/// the word where it lies and allocates nothing. Thread-safe.
public final class ShapeCache: Sendable {
    /// Everything but the text that decides how a word shapes. Interned to a number once
    /// per run, so a word's lookup hashes only its text.
    struct Context: Hashable {
        var face: FaceIdentity
        var variations: [FontVariation]
        var size: Double
        var features: [FontFeature]
        var spaced: Bool
        var script: Int32
        var rtl: Bool
        var language: String
    }

    /// Longest stretch cached, in UTF-16 units; longer ones are shaped every time. (Enough
    /// for the space-less phrases of Thai, Japanese and Chinese text as well as for words;
    /// Minikin's limit is 128.)
    static let maxWordLength = 64

    /// A word of up to 16 UTF-16 units packed into four words (zero past its end; its length
    /// is kept beside it), or all zero for a longer one.
    struct Packed: Equatable, Sendable {
        static let capacity = 16
        var a: UInt64 = 0, b: UInt64 = 0, c: UInt64 = 0, d: UInt64 = 0

        init(_ text: UnsafeBufferPointer<UInt16>) {
            guard text.count <= Self.capacity, let base = text.baseAddress else { return }
            withUnsafeMutableBytes(of: &self) { raw in
                raw.baseAddress!.copyMemory(from: base, byteCount: text.count * 2)
            }
        }
    }

    /// One lock's worth of the cache: an open-addressing table of entry numbers over the
    /// entries. A value kept in a `Mutex` (`ShapeCache.shards`), so its fields are reached
    /// through the lock's `inout` access, without the run-time exclusivity checks a class's
    /// fields would cost on every probe.
    struct Shard: Sendable {
        struct Entry: Sendable {
            var hash: UInt64
            var context: Int32
            var flags: UInt8
            var length: UInt8
            /// A word of up to `Packed.capacity` units, in place (compared without reaching
            /// for another block of memory); a longer one in `text`.
            var packed: Packed
            var text: [UInt16]
            var glyphs: [ShapedGlyph]
            var tick: UInt64
        }
        private var entries: [Entry] = []
        /// Slots: the hash's high 32 bits, then entry number + 1 (0 for empty), so a probe
        /// passes other words' slots without reading their entries. Size a power of two, at
        /// least twice the capacity.
        private var slots: [UInt64]
        private var tick: UInt64 = 0
        /// Lookups that found their word or not: counted here, under the shard's lock, not in
        /// one counter every core writes.
        private(set) var hits = 0
        private(set) var misses = 0
        let capacity: Int

        init(capacity: Int) {
            self.capacity = max(8, capacity)
            var size = 16
            while size < self.capacity * 2 { size <<= 1 }
            slots = [UInt64](repeating: 0, count: size)
        }

        var count: Int { entries.count }

        mutating func find(_ hash: UInt64, _ context: Int32, _ flags: UInt8, _ text: UnsafeBufferPointer<UInt16>,
                           _ packed: Packed) -> [ShapedGlyph]? {
            // The probe reads both tables through buffers (no bounds or uniqueness checks).
            let tag = hash >> 32
            let found: Int? = slots.withUnsafeBufferPointer { slots in
                entries.withUnsafeBufferPointer { entries in
                    let mask = slots.count - 1
                    var i = Int(truncatingIfNeeded: hash) & mask
                    while true {
                        let slot = slots[i]
                        if slot == 0 { return nil }
                        if slot >> 32 == tag {
                            let e = Int(slot & 0xFFFF_FFFF) - 1
                            if entries[e].hash == hash, entries[e].context == context, entries[e].flags == flags,
                               Int(entries[e].length) == text.count,
                               text.count <= Packed.capacity ? entries[e].packed == packed : Self.same(entries[e].text, text) {
                                return e
                            }
                        }
                        i = (i + 1) & mask
                    }
                }
            }
            guard let e = found else {
                misses += 1
                return nil
            }
            hits += 1
            tick += 1
            // Marked used only when it has aged a sixteenth of the capacity: a word hit over
            // and over is not written each time (a write pulls its line away from the other
            // cores reading it), and stays far from the oldest eighth that eviction drops.
            if tick &- entries[e].tick > UInt64(capacity / 16) { entries[e].tick = tick }
            return entries[e].glyphs
        }

        private static func same(_ a: [UInt16], _ b: UnsafeBufferPointer<UInt16>) -> Bool {
            a.withUnsafeBufferPointer { a in
                guard let pa = a.baseAddress, let pb = b.baseAddress else { return a.count == b.count }
                return memcmp(pa, pb, a.count * 2) == 0
            }
        }

        mutating func insert(_ hash: UInt64, _ context: Int32, _ flags: UInt8, _ text: UnsafeBufferPointer<UInt16>,
                             _ packed: Packed, _ glyphs: [ShapedGlyph]) {
            // (The look-up here is not one of the cache's: its count is taken back.)
            if find(hash, context, flags, text, packed) != nil {
                hits -= 1
                return
            }
            misses -= 1
            if entries.count >= capacity { evictOldest() }
            tick += 1
            entries.append(Entry(hash: hash, context: context, flags: flags, length: UInt8(text.count), packed: packed,
                                 text: text.count <= Packed.capacity ? [] : Array(text), glyphs: glyphs, tick: tick))
            place(entries.count - 1)
        }

        mutating func clear() {
            entries.removeAll()
            for i in slots.indices { slots[i] = 0 }
        }

        private mutating func place(_ e: Int) {
            let mask = slots.count - 1
            let hash = entries[e].hash
            var i = Int(truncatingIfNeeded: hash) & mask
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = (hash >> 32) << 32 | UInt64(e + 1)
        }

        /// Drops the least recently used eighth and rebuilds the slots.
        private mutating func evictOldest() {
            let drop = max(1, capacity / 8)
            let threshold = entries.map(\.tick).sorted()[drop - 1]
            entries.removeAll { $0.tick <= threshold }
            for i in slots.indices { slots[i] = 0 }
            for e in entries.indices { place(e) }
        }
    }

    /// A shard behind its lock (a class, as a `Mutex` cannot be an array's element).
    final class LockedShard: Sendable {
        let shard: Mutex<Shard>
        init(capacity: Int) { shard = Mutex(Shard(capacity: capacity)) }
    }
    private let shards: [LockedShard]
    /// Most words kept in all (0: the cache is off).
    public let capacity: Int

    /// `capacity`: most words kept in all (0 turns the cache off).
    public init(capacity: Int) {
        self.capacity = capacity
        let perShard = max(1, capacity / 16)
        shards = (0..<16).map { _ in LockedShard(capacity: perShard) }
    }

    /// The glyphs of `text` in shaping context `context` (clusters relative to the word's
    /// start), at a paragraph's beginning (`bot`) or end (`eot`) or not, shaping them with
    /// `make` on a miss.
    func glyphs(context: Int, bot: Bool, eot: Bool, text: UnsafeBufferPointer<UInt16>,
                make: () -> [ShapedGlyph]) -> [ShapedGlyph] {
        guard capacity > 0 else { return make() }
        var h: UInt64 = 0xcbf29ce484222325
        for u in text { h = (h ^ UInt64(u)) &* 0x100000001b3 }
        h ^= UInt64(truncatingIfNeeded: context) &* 0x9E3779B97F4A7C15
        let packed = Packed(text)
        let flags: UInt8 = (bot ? 1 : 0) | (eot ? 2 : 0)
        let context32 = Int32(truncatingIfNeeded: context)
        let locked = shards[Int(h >> 60)]
        if let known = locked.shard.withLock({ $0.find(h, context32, flags, text, packed) }) {
            return known
        }
        let made = make()
        locked.shard.withLock { $0.insert(h, context32, flags, text, packed, made) }
        return made
    }

    /// Context numbers, never reused (a word shaped under a number a clear forgot can never
    /// be found under another context). Bounded: when full, it and the words are cleared.
    private let contexts = Mutex<(table: [Context: Int], next: Int)>(([:], 0))
    private static let maxContexts = 4096

    /// The number of a shaping context (once per run).
    func contextNumber(_ context: Context) -> Int {
        if let known = contexts.withLock({ $0.table[context] }) { return known }
        let (number, cleared) = contexts.withLock { state -> (Int, Bool) in
            if let known = state.table[context] { return (known, false) }
            var cleared = false
            if state.table.count >= Self.maxContexts {
                state.table.removeAll()
                cleared = true
            }
            let n = state.next
            state.next += 1
            state.table[context] = n
            return (n, cleared)
        }
        if cleared { for locked in shards { locked.shard.withLock { $0.clear() } } }
        return number
    }

    /// Words kept now, and how lookups went.
    public var count: Int { shards.reduce(0) { $0 + $1.shard.withLock { $0.count } } }
    public var lookupCounts: CacheLookups {
        shards.reduce(CacheLookups(hits: 0, misses: 0)) { total, locked in
            let (hits, misses) = locked.shard.withLock { ($0.hits, $0.misses) }
            return CacheLookups(hits: total.hits + hits, misses: total.misses + misses)
        }
    }
}
