/// A dictionary with a capacity: inserting past it evicts the least recently inserted or
/// read entries — the oldest eighth at once, so that a full cache costs O(log n) per insert
/// rather than a scan each time. Not thread-safe; guard it with a lock.
public struct BoundedCache<Key: Hashable, Value> {
    /// An entry in a box, so a lookup marks it used without writing the dictionary again.
    public final class Entry {
        let value: Value
        var tick: UInt64
        init(_ value: Value, _ tick: UInt64) { self.value = value; self.tick = tick }
    }
    private var entries: [Key: Entry] = [:]
    private var tick: UInt64 = 0
    public let capacity: Int

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    public var count: Int { entries.count }

    public subscript(key: Key) -> Value? {
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
