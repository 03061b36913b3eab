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
    /// shaper, and then kept one by one (`RequestContext.shapeRun`), rather than each alone.
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

    /// The words `wordsToSave` lists: each word's last use, context number, edge flags and
    /// where its text and glyphs lie in two flat stores (a few large blocks, not two small
    /// arrays per word).
    struct WordsToSave {
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
    func wordsToSave() -> WordsToSave {
        var kept = WordsToSave()
        for (context, number) in contexts.withLock({ $0.table }) { kept.contexts[number] = context }
        kept.words.reserveCapacity(count)
        for i in 0..<Self.shardCount {
            shards[i].withLock { shard in
                shard.forEachWord { tick, context, flags, text, glyphs in
                    guard kept.contexts[Int(context)] != nil else { return }
                    let textStart = kept.texts.count, glyphStart = kept.glyphs.count
                    kept.texts.append(contentsOf: text)
                    kept.glyphs.append(contentsOf: glyphs)
                    kept.words.append(WordsToSave.Word(tick: tick, context: Int(context), flags: flags, text: textStart..<kept.texts.count,
                                                     glyphs: glyphStart..<kept.glyphs.count))
                }
            }
        }
        kept.words.sort { $0.tick < $1.tick }
        return kept
    }

    /// Keeps a word read back from a shape cache file, shaped in `context` (a number from
    /// `contextNumber`), as `keep` would (not counted as a lookup; a word kept already is
    /// left as it is).
    func restore(context: Int, flags: UInt8, text: UnsafeBufferPointer<UInt16>, glyphs: ArraySlice<ShapedGlyph>) {
        let key = key(context: context, bot: flags & 1 != 0, eot: flags & 2 != 0, text: text)
        shards[key.shard].withLock { $0.insert(key.hash, key.context, key.flags, text, key.packed, glyphs) }
        restoredWords.add(1, ordering: .relaxed)
    }

    /// Words read back from a shape cache file since start (`stats`).
    private let restoredWords = Atomic<Int>(0)
    public var wordsRestored: Int { restoredWords.load(ordering: .relaxed) }

    /// Drops every word kept (counters and context numbers stay): the next layouts shape
    /// their words afresh, as for text never seen (what engine-bench measures uncached).
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
