import Glibc
import Synchronization

extension ShapeCache {
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
        /// as `RequestContext.place` does) and returns true, or returns false (a miss).
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
        /// context number and edge flags, its text and its glyphs (for `ShapeCache.wordsToSave`).
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
}
