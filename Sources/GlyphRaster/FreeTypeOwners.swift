import CFreeType

// The FreeType objects the rasterizer owns, and the values it keys and caches them by.

struct FaceKey: Hashable {
    var file: String
    var index: Int
}

/// Owns the `FT_Library`; closed after the last face that holds it.
final class FreeTypeLibrary {
    let handle: FT_Library
    init(_ handle: FT_Library) { self.handle = handle }
    deinit { FT_Done_FreeType(handle) }
}

struct VariationSetting: Equatable {
    var tag: UInt32
    var value: Double
}

/// One variation axis, in design units.
struct VariationAxis {
    var tag: UInt32
    var minimum, maximum: FT_Fixed
}

/// A glyph image copied out of FreeType.
struct GlyphImage: Sendable {
    var bitmap: GlyphRasterizer.GlyphBitmap
    var pixels: [UInt8]
}

/// A dictionary with a capacity: inserting past it evicts the least recently inserted or
/// read entries (the oldest eighth at once, so a full cache costs O(log n) per insert rather
/// than a scan each time). The engine has its own; this module stands alone on FreeType, so
/// that rendering can be linked without the shaping stack. Not thread-safe; guard it with a lock.
struct BoundedCache<Key: Hashable, Value> {
    /// An entry in a box, so a lookup marks it used without writing the dictionary again.
    final class Entry {
        let value: Value
        var tick: UInt64
        init(_ value: Value, _ tick: UInt64) { self.value = value; self.tick = tick }
    }
    private var entries: [Key: Entry] = [:]
    private var tick: UInt64 = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    subscript(key: Key) -> Value? {
        mutating get {
            guard let entry = entries[key] else { return nil }
            tick += 1
            entry.tick = tick
            return entry.value
        }
        set {
            guard let newValue else { entries[key] = nil; return }
            tick += 1
            if entries[key] == nil, entries.count >= capacity {
                let drop = max(1, capacity / 8)
                if drop == 1 {
                    if let oldest = entries.min(by: { $0.value.tick < $1.value.tick })?.key { entries[oldest] = nil }
                } else {
                    let threshold = entries.values.map(\.tick).sorted()[drop - 1]
                    entries = entries.filter { $0.value.tick > threshold }
                }
            }
            entries[key] = Entry(newValue, tick)
        }
    }
}
