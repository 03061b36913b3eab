import Synchronization

/// Shaped words, kept across requests (as Android's Minikin keeps its layout cache): the
/// glyphs of a short stretch of text — a word with the spaces after it — in one face, size,
/// axes, features, script, direction and language. Words repeat across paragraphs and across
/// requests (a window resized, a list relaid out), so most shaping becomes a lookup.
///
/// Bounded by entry count (least recently used evicted first), split into shards with their
/// own locks so worker threads rarely wait on each other. Thread-safe.
public final class ShapeCache: Sendable {
    /// Everything but the text that decides how a word shapes. Interned to a number once
    /// per run, so a word's key hashes only its text.
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

    /// A word's key: its context's number, the paragraph-edge flags and its text, with the
    /// text's hash computed once (FNV-1a).
    struct Key: Hashable {
        var context: Int
        var bot: Bool
        var eot: Bool
        var text: [UInt16]
        var textHash: UInt64

        init(context: Int, bot: Bool, eot: Bool, text: UnsafeBufferPointer<UInt16>) {
            self.context = context
            self.bot = bot
            self.eot = eot
            self.text = Array(text)
            var h: UInt64 = 0xcbf29ce484222325
            for u in text { h = (h ^ UInt64(u)) &* 0x100000001b3 }
            self.textHash = h
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(textHash ^ UInt64(context) &* 0x9E3779B97F4A7C15 ^ (bot ? 1 : 0) ^ (eot ? 2 : 0))
        }

        static func == (a: Key, b: Key) -> Bool {
            a.textHash == b.textHash && a.context == b.context && a.bot == b.bot && a.eot == b.eot && a.text == b.text
        }
    }

    /// Context numbers. Bounded: when full, it and the words are cleared together.
    private let contexts = Mutex<[Context: Int]>([:])
    private static let maxContexts = 4096

    /// The number of a shaping context (once per run).
    func contextNumber(_ context: Context) -> Int {
        if let known = contexts.withLock({ $0[context] }) { return known }
        let (number, cleared) = contexts.withLock { table -> (Int, Bool) in
            if let known = table[context] { return (known, false) }
            var cleared = false
            if table.count >= Self.maxContexts {
                table.removeAll()
                cleared = true
            }
            let n = (table.values.max() ?? -1) + 1
            table[context] = n
            return (n, cleared)
        }
        if cleared { for shard in shards { shard.entries.withLock { $0 = BoundedCache(capacity: $0.capacity) } } }
        return number
    }

    /// Longest stretch cached, in UTF-16 units; longer ones are shaped every time.
    static let maxWordLength = 40

    /// One lock's worth of the cache.
    final class Shard: Sendable {
        let entries: Mutex<BoundedCache<Key, [ShapedGlyph]>>
        init(capacity: Int) { entries = Mutex(BoundedCache(capacity: capacity)) }
    }

    private let shards: [Shard]
    private let lookups = CacheLookupCounter()
    public let capacity: Int

    /// `capacity`: most words kept in all (0 turns the cache off).
    public init(capacity: Int) {
        self.capacity = capacity
        let perShard = max(1, capacity / 16)
        shards = (0..<16).map { _ in Shard(capacity: perShard) }
    }

    private func shard(_ key: Key) -> Int { Int(UInt(bitPattern: key.hashValue) % 16) }

    /// The glyphs of `key` (clusters relative to the word's start), shaping them with `make`
    /// on a miss.
    func glyphs(_ key: Key, make: () -> [ShapedGlyph]) -> [ShapedGlyph] {
        guard capacity > 0 else { return make() }
        let s = shard(key)
        if let known = shards[s].entries.withLock({ $0[key] }) {
            lookups.hit()
            return known
        }
        lookups.miss()
        let made = make()
        shards[s].entries.withLock { $0[key] = made }
        return made
    }

    /// Words kept now, and how lookups went.
    public var count: Int { shards.reduce(0) { total, shard in total + shard.entries.withLock { $0.count } } }
    public var lookupCounts: CacheLookups { lookups.snapshot }
}
