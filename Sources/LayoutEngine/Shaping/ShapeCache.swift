import CICUShim
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
///
/// (`@unchecked Sendable`: the shards are reached through a pointer the cache owns, made in
/// `init` and freed in `deinit`; every shard's contents only under its `Mutex`.)
public final class ShapeCache: @unchecked Sendable {
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
    /// entries, whose glyphs (and texts past `Packed.capacity` units) lie end to end in one
    /// store each. A value kept in a `Mutex` (`ShapeCache.shards`), so its fields are reached
    /// through the lock's `inout` access, without the run-time exclusivity checks a class's
    /// fields would cost on every probe. A hit's glyphs are copied out under the lock: no
    /// array of the cache's is handed out and retained, so threads looking up the same words
    /// do not write to (and pull back and forth between their cores) the same counters.
    /// Owns its two blocks (entries and slots), freed in `deinit`. (`@unchecked Sendable`:
    /// the blocks are read and written only through the shard, and the shard only under its
    /// `Mutex`; the slots' address alone is handed out, for prefetching.)
    struct Shard: ~Copyable, @unchecked Sendable {
        /// 64 bytes (fields in this order, none padded), kept 64-byte aligned: a probe that
        /// reaches an entry reads one cache line of it, not two.
        struct Entry: Sendable {
            var hash: UInt64
            /// A word of up to `Packed.capacity` units, in place (compared without reaching
            /// for another block of memory); a longer one at `textStart` in `texts`.
            var packed: Packed
            var tick: UInt64
            var context: Int32
            var textStart: Int32
            /// Its glyphs: `glyphCount` of them at `glyphStart` in `glyphs`.
            var glyphStart: Int32
            var glyphCount: UInt16
            var flags: UInt8
            var length: UInt8
        }
        /// The entries, `count` of them, in a block of `capacity`, aligned to 64 bytes: an
        /// entry is one cache line, not parts of two.
        private let entries: UnsafeMutablePointer<Entry>
        private(set) var count = 0
        /// Where the entries lie (for a test of their alignment).
        var entriesAddress: UnsafeRawPointer { UnsafeRawPointer(entries) }
        private var glyphs: [ShapedGlyph] = []
        private var texts: [UInt16] = []
        /// Slots: the hash's high 32 bits, then entry number + 1 (0 for empty), so a probe
        /// passes other words' slots without reading their entries. `slotCount` of them (a
        /// power of two, at least twice the capacity) in a block whose address never changes
        /// (the cache prefetches a word's first slot by its address, without the lock).
        let slots: UnsafeMutablePointer<UInt64>
        let slotCount: Int
        private var tick: UInt64 = 0
        /// Lookups that found their word or not: counted here, under the shard's lock, not in
        /// one counter every core writes.
        private(set) var hits = 0
        private(set) var misses = 0
        let capacity: Int

        /// Slots for a shard of `capacity` words: a power of two, at least twice as many.
        static func slotCount(capacity: Int) -> Int {
            var size = 16
            while size < capacity * 2 { size <<= 1 }
            return size
        }

        /// An empty shard for at most `capacity` (at least 8) words.
        init(capacity: Int) {
            self.capacity = max(8, capacity)
            slotCount = Self.slotCount(capacity: self.capacity)
            entries = UnsafeMutableRawPointer.allocate(byteCount: self.capacity * MemoryLayout<Entry>.stride, alignment: 64)
                .bindMemory(to: Entry.self, capacity: self.capacity)
            slots = .allocate(capacity: slotCount)
            slots.initialize(repeating: 0, count: slotCount)
        }

        deinit {
            entries.deallocate()
            slots.deallocate()
        }

        /// The entry number of the word, or nil; counts the lookup.
        private mutating func entry(_ hash: UInt64, _ context: Int32, _ flags: UInt8, _ text: UnsafeBufferPointer<UInt16>,
                                    _ packed: Packed) -> Int? {
            guard let e = probe(hash, context, flags, text, packed) else {
                misses += 1
                return nil
            }
            hits += 1
            tick += 1
            // Marked used only when it has aged a sixteenth of the capacity: a word hit over
            // and over is not written each time (a write pulls its line away from the other
            // cores reading it), and stays far from the oldest eighth that eviction drops.
            if tick &- entries[e].tick > UInt64(capacity / 16) { entries[e].tick = tick }
            return e
        }

        /// Whether the word is kept: not counted, not marked used.
        func contains(_ hash: UInt64, _ context: Int32, _ flags: UInt8, _ text: UnsafeBufferPointer<UInt16>,
                      _ packed: Packed) -> Bool {
            probe(hash, context, flags, text, packed) != nil
        }

        /// The entry number of the word, or nil.
        private func probe(_ hash: UInt64, _ context: Int32, _ flags: UInt8, _ text: UnsafeBufferPointer<UInt16>,
                           _ packed: Packed) -> Int? {
            // The probe reads the tables through buffers (no bounds or uniqueness checks).
            let tag = hash >> 32
            return texts.withUnsafeBufferPointer { texts in
                let mask = slotCount - 1
                var i = Int(truncatingIfNeeded: hash) & mask
                while true {
                    let slot = slots[i]
                    if slot == 0 { return nil }
                    if slot >> 32 == tag {
                        let e = Int(slot & 0xFFFF_FFFF) - 1
                        if entries[e].hash == hash, entries[e].context == context, entries[e].flags == flags,
                           Int(entries[e].length) == text.count,
                           text.count <= Packed.capacity
                               ? entries[e].packed == packed
                               : memcmp(texts.baseAddress! + Int(entries[e].textStart), text.baseAddress!,
                                        text.count * 2) == 0 {
                            return e
                        }
                    }
                    i = (i + 1) & mask
                }
            }
        }

        /// Appends the word's glyphs to `out` and returns true, or returns false (a miss).
        mutating func find(_ hash: UInt64, _ context: Int32, _ flags: UInt8, _ text: UnsafeBufferPointer<UInt16>,
                           _ packed: Packed, appendingTo out: inout [ShapedGlyph]) -> Bool {
            guard let e = entry(hash, context, flags, text, packed) else { return false }
            let start = Int(entries[e].glyphStart), count = Int(entries[e].glyphCount)
            glyphs.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[start..<(start + count)])) }
            return true
        }

        /// Adds the word's advances to `advances` (each glyph's at its cluster plus `offset`,
        /// as `ParagraphContext.place` does) and returns true, or returns false (a miss).
        mutating func find(_ hash: UInt64, _ context: Int32, _ flags: UInt8, _ text: UnsafeBufferPointer<UInt16>,
                           _ packed: Packed, addingAdvancesAt offset: Int, to advances: inout [Double]) -> Bool {
            guard let e = entry(hash, context, flags, text, packed) else { return false }
            let start = Int(entries[e].glyphStart), count = Int(entries[e].glyphCount)
            glyphs.withUnsafeBufferPointer { glyphs in
                advances.withUnsafeMutableBufferPointer { advances in
                    for g in start..<(start + count) {
                        let cluster = offset + Int(glyphs[g].cluster)
                        if cluster < advances.count { advances[cluster] += Double(glyphs[g].advance) }
                    }
                }
            }
            return true
        }

        /// The word's glyphs, or nil (a miss).
        mutating func find(_ hash: UInt64, _ context: Int32, _ flags: UInt8, _ text: UnsafeBufferPointer<UInt16>,
                           _ packed: Packed) -> [ShapedGlyph]? {
            var out: [ShapedGlyph] = []
            return find(hash, context, flags, text, packed, appendingTo: &out) ? out : nil
        }

        mutating func insert(_ hash: UInt64, _ context: Int32, _ flags: UInt8, _ text: UnsafeBufferPointer<UInt16>,
                             _ packed: Packed, _ made: ArraySlice<ShapedGlyph>) {
            // (The look-up here is not one of the cache's: not counted.)
            // (A word shaped into more glyphs than an entry counts is not kept: none does.)
            if made.count > Int(UInt16.max) || probe(hash, context, flags, text, packed) != nil { return }
            if count >= capacity { evictOldest() }
            tick += 1
            var textStart: Int32 = -1
            if text.count > Packed.capacity {
                textStart = Int32(texts.count)
                texts.append(contentsOf: text)
            }
            (entries + count).initialize(to: Entry(hash: hash, packed: packed, tick: tick, context: context,
                                                   textStart: textStart, glyphStart: Int32(glyphs.count),
                                                   glyphCount: UInt16(made.count), flags: flags,
                                                   length: UInt8(text.count)))
            count += 1
            glyphs.append(contentsOf: made)
            place(count - 1)
        }

        /// Calls `body` with each kept word: when it was last used (this shard's clock), its
        /// context number and edge flags, its text and its glyphs (for `ShapeCache.keptWords`).
        func forEachWord(_ body: (_ tick: UInt64, _ context: Int32, _ flags: UInt8, _ text: UnsafeBufferPointer<UInt16>,
                                  _ glyphs: UnsafeBufferPointer<ShapedGlyph>) -> Void) {
            glyphs.withUnsafeBufferPointer { glyphs in
                texts.withUnsafeBufferPointer { texts in
                    for entry in UnsafeBufferPointer(start: entries, count: count) {
                        let words = UnsafeBufferPointer(rebasing: glyphs[Int(entry.glyphStart)..<(Int(entry.glyphStart) + Int(entry.glyphCount))])
                        if entry.textStart >= 0 {
                            body(entry.tick, entry.context, entry.flags,
                                 UnsafeBufferPointer(rebasing: texts[Int(entry.textStart)..<(Int(entry.textStart) + Int(entry.length))]), words)
                        } else {
                            withUnsafeBytes(of: entry.packed) { raw in
                                body(entry.tick, entry.context, entry.flags,
                                     UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt16.self), count: Int(entry.length)),
                                     words)
                            }
                        }
                    }
                }
            }
        }

        /// Counts a lookup that did not find its word, made without `find`.
        mutating func countMiss() { misses += 1 }

        mutating func clear() {
            count = 0
            glyphs.removeAll()
            texts.removeAll()
            slots.update(repeating: 0, count: slotCount)
        }

        private mutating func place(_ e: Int) {
            let mask = slotCount - 1
            let hash = entries[e].hash
            var i = Int(truncatingIfNeeded: hash) & mask
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = (hash >> 32) << 32 | UInt64(e + 1)
        }

        /// Drops the least recently used eighth, moves the rest's glyphs and texts down over
        /// the gaps, in place (entries keep the order they were added in, and so do their
        /// glyphs and texts in the stores: each moves to a place at or before its own), and
        /// rebuilds the slots. The stores keep their memory: no block is freed and made anew
        /// on every eviction.
        private mutating func evictOldest() {
            let drop = max(1, capacity / 8)
            let threshold = UnsafeBufferPointer(start: entries, count: count).map(\.tick).sorted()[drop - 1]
            var kept = 0, glyphEnd = 0, textEnd = 0
            glyphs.withUnsafeMutableBufferPointer { glyphs in
                texts.withUnsafeMutableBufferPointer { texts in
                    for e in 0..<count where entries[e].tick > threshold {
                        var entry = entries[e]
                        let count = Int(entry.glyphCount)
                        if count > 0 {
                            memmove(glyphs.baseAddress! + glyphEnd, glyphs.baseAddress! + Int(entry.glyphStart),
                                    count * MemoryLayout<ShapedGlyph>.stride)
                        }
                        entry.glyphStart = Int32(glyphEnd)
                        glyphEnd += count
                        if entry.textStart >= 0 {
                            memmove(texts.baseAddress! + textEnd, texts.baseAddress! + Int(entry.textStart), Int(entry.length) * 2)
                            entry.textStart = Int32(textEnd)
                            textEnd += Int(entry.length)
                        }
                        entries[kept] = entry
                        kept += 1
                    }
                }
            }
            count = kept
            glyphs.removeSubrange(glyphEnd...)
            texts.removeSubrange(textEnd...)
            slots.update(repeating: 0, count: slotCount)
            for e in 0..<count { place(e) }
        }
    }

    /// The shards behind their locks, `shardCount` of them in one block this cache owns (not
    /// objects in an array: a lookup reaching a shard object would retain and release it,
    /// a write to the same counter from every thread, on every word).
    private let shards: UnsafeMutablePointer<Mutex<Shard>>
    private static let shardCount = 16
    /// Each shard's slots (their block's address, which never changes; the same count for
    /// all), for `prefetch`.
    private let slotBlocks: UnsafeMutablePointer<UnsafeMutablePointer<UInt64>>
    private let slotMask: Int
    /// Most words kept in all (0: the cache is off).
    public let capacity: Int

    /// Whether a miss is shaped together with the missing words after it (`shapeRun`); off
    /// only in tests, to compare with shaping each alone.
    let shapesMissingWordsTogether: Bool

    /// `capacity`: most words kept in all (0 turns the cache off).
    public convenience init(capacity: Int) {
        self.init(capacity: capacity, shapingMissingWordsTogether: true)
    }

    init(capacity: Int, shapingMissingWordsTogether: Bool) {
        self.capacity = capacity
        self.shapesMissingWordsTogether = shapingMissingWordsTogether
        let perShard = max(1, capacity / Self.shardCount)
        shards = .allocate(capacity: Self.shardCount)
        slotBlocks = .allocate(capacity: Self.shardCount)
        slotMask = Shard.slotCount(capacity: max(8, perShard)) - 1
        for i in 0..<Self.shardCount {
            let shard = Shard(capacity: perShard)
            (slotBlocks + i).initialize(to: shard.slots)
            (shards + i).initialize(to: Mutex(shard))
        }
    }

    deinit {
        shards.deinitialize(count: Self.shardCount)
        shards.deallocate()
        slotBlocks.deallocate()
    }

    /// Starts loading the first slot `key`'s lookup will read (a hint; reads nothing): made
    /// for a run's next word while the current one is looked up, so that the slot — a likely
    /// cache miss, words being spread over the cache by their hashes — is on its way.
    @inline(__always) func prefetch(_ key: WordKey) {
        ld_prefetch(slotBlocks[key.shard] + (Int(truncatingIfNeeded: key.hash) & slotMask))
    }

    /// A word's place in the cache: its hash (of its text and context), its text packed,
    /// its context number and paragraph-edge flags. Made once per word, used for the lookup
    /// and, on a miss, for keeping it.
    struct WordKey {
        let hash: UInt64
        let packed: Packed
        let flags: UInt8
        let context: Int32
        /// (`shardCount` is 16: the hash's top four bits.)
        var shard: Int { Int(hash >> 60) }
    }

    /// The key of `text` in shaping context `context`, at a paragraph's beginning (`bot`) or
    /// end (`eot`) or not.
    @inline(__always) func key(context: Int, bot: Bool, eot: Bool, text: UnsafeBufferPointer<UInt16>) -> WordKey {
        var h: UInt64 = 0xcbf29ce484222325
        for u in text { h = (h ^ UInt64(u)) &* 0x100000001b3 }
        h ^= UInt64(truncatingIfNeeded: context) &* 0x9E3779B97F4A7C15
        return WordKey(hash: h, packed: Packed(text), flags: (bot ? 1 : 0) | (eot ? 2 : 0),
                       context: Int32(truncatingIfNeeded: context))
    }

    /// Appends the kept glyphs of the word `text` (clusters relative to its start) to `out`
    /// and returns true, or returns false: a miss (counted as one; the caller shapes the word
    /// and `keep`s it). The cache must be on (`capacity` > 0).
    @inline(__always) func appendGlyphs(_ key: WordKey, text: UnsafeBufferPointer<UInt16>, to out: inout [ShapedGlyph]) -> Bool {
        shards[key.shard].withLock { $0.find(key.hash, key.context, key.flags, text, key.packed, appendingTo: &out) }
    }

    /// Adds the advances of the kept word `text`, found at `offset` of a paragraph, to that
    /// paragraph's `advances` (per code unit: each glyph's at its cluster) and returns true;
    /// or returns false: a miss, counted as `appendGlyphs` counts one. For a layout that
    /// reads no glyphs: none are copied out.
    @inline(__always) func addAdvances(_ key: WordKey, text: UnsafeBufferPointer<UInt16>, at offset: Int,
                                       to advances: inout [Double]) -> Bool {
        shards[key.shard].withLock {
            $0.find(key.hash, key.context, key.flags, text, key.packed, addingAdvancesAt: offset, to: &advances)
        }
    }

    /// Whether the word is kept, without counting a lookup or marking it used: for a caller
    /// deciding which of the words after a miss to shape together with it.
    func contains(_ key: WordKey, text: UnsafeBufferPointer<UInt16>) -> Bool {
        shards[key.shard].withLock { $0.contains(key.hash, key.context, key.flags, text, key.packed) }
    }

    /// Keeps `glyphs` (clusters relative to the word's start) as the word's, counting a miss
    /// unless `appendGlyphs` counted it already. (Kept already — another thread shaped it
    /// meanwhile — it is left as it is.)
    func keep(_ key: WordKey, text: UnsafeBufferPointer<UInt16>, glyphs: ArraySlice<ShapedGlyph>, countingMiss: Bool) {
        shards[key.shard].withLock {
            if countingMiss { $0.countMiss() }
            $0.insert(key.hash, key.context, key.flags, text, key.packed, glyphs)
        }
    }

    /// Words shaped on a miss together with the missing words after them, in one call to the
    /// shaper, and then kept one by one (`ParagraphContext.shapeRun`), rather than each alone.
    /// Counted here for `stats`.
    private let sharedShaping = Atomic<Int>(0)
    public var wordsShapedTogether: Int { sharedShaping.load(ordering: .relaxed) }
    func countShapedTogether(_ words: Int) { sharedShaping.add(words, ordering: .relaxed) }

    /// Context numbers, never reused (a word shaped under a number a clear forgot can never
    /// be found under another context). Bounded: when full, it and the words are cleared.
    private let contexts = Mutex<(table: [Context: Int], next: Int)>(([:], 0))
    static let maxContexts = 4096

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
        if cleared { removeAll() }
        return number
    }

    /// The words `keptWords` lists: each word's last use, context number, edge flags and
    /// where its text and glyphs lie in two flat stores (a few large blocks, not two small
    /// arrays per word).
    struct KeptWords {
        struct Word {
            var tick: UInt64
            var context: Int
            var flags: UInt8
            var text: Range<Int>
            var glyphs: Range<Int>
        }
        var contexts: [Int: Context] = [:]
        var words: [Word] = []
        var texts: [UInt16] = []
        var glyphs: [ShapedGlyph] = []
    }

    /// Every word kept, with the contexts they were shaped in, least recently used first
    /// (by each shard's clock: the shards see words of every kind alike, so their clocks
    /// run about together). Each shard is read under its lock; words kept meanwhile by
    /// other threads may or may not be listed.
    func keptWords() -> KeptWords {
        var kept = KeptWords()
        for (context, number) in contexts.withLock({ $0.table }) { kept.contexts[number] = context }
        kept.words.reserveCapacity(count)
        for i in 0..<Self.shardCount {
            shards[i].withLock { shard in
                shard.forEachWord { tick, context, flags, text, glyphs in
                    guard kept.contexts[Int(context)] != nil else { return }
                    let textStart = kept.texts.count, glyphStart = kept.glyphs.count
                    kept.texts.append(contentsOf: text)
                    kept.glyphs.append(contentsOf: glyphs)
                    kept.words.append(KeptWords.Word(tick: tick, context: Int(context), flags: flags, text: textStart..<kept.texts.count,
                                                     glyphs: glyphStart..<kept.glyphs.count))
                }
            }
        }
        kept.words.sort { $0.tick < $1.tick }
        return kept
    }

    /// Keeps a word read back from a kept-words file, shaped in `context` (a number from
    /// `contextNumber`), as `keep` would (not counted as a lookup; a word kept already is
    /// left as it is).
    func restore(context: Int, flags: UInt8, text: UnsafeBufferPointer<UInt16>, glyphs: ArraySlice<ShapedGlyph>) {
        let key = key(context: context, bot: flags & 1 != 0, eot: flags & 2 != 0, text: text)
        shards[key.shard].withLock { $0.insert(key.hash, key.context, key.flags, text, key.packed, glyphs) }
        restoredWords.add(1, ordering: .relaxed)
    }

    /// Words read back from a kept-words file since start (`stats`).
    private let restoredWords = Atomic<Int>(0)
    public var wordsRestored: Int { restoredWords.load(ordering: .relaxed) }

    /// Drops every word kept (counters and context numbers stay): the next layouts shape
    /// their words afresh, as for text never seen. (engine-bench times that.)
    public func removeAll() {
        for i in 0..<Self.shardCount { shards[i].withLock { $0.clear() } }
    }

    /// Words kept now, and how lookups went.
    public var count: Int { (0..<Self.shardCount).reduce(0) { total, i in total + shards[i].withLock { $0.count } } }
    public var lookupCounts: CacheLookups {
        (0..<Self.shardCount).reduce(CacheLookups(hits: 0, misses: 0)) { total, i in
            let (hits, misses) = shards[i].withLock { ($0.hits, $0.misses) }
            return CacheLookups(hits: total.hits + hits, misses: total.misses + misses)
        }
    }
}
