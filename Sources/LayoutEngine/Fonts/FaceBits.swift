/// Per request (or layouts carried on, `FontSelectionCarry`), the code units seen to take a
/// fallback face as one-unit clusters: one bit table per (family, script, face), so that a
/// later cluster of the same unit continuing a run in that face skips `FontSelector.face`.
/// Sound because, for a one-unit cluster, `face` depends only on the family, the script, the
/// unit and the face of the cluster before (which, continuing the run, is the run's face).
/// Bounded: at most `maxTables` tables of at most 1,024 words (the BMP) each. Keys hold their
/// faces (an address freed and reused by another face during the request would otherwise
/// find the first one's bits).
struct FaceBits {
    private var keys: [(family: Int, script: Int32, face: FontFace)] = []
    private var tables: [[UInt64]] = []
    static let maxTables = 32

    /// Moves the table for (`family`, `script`, `face`) into `bits` (made on first use) and
    /// returns its slot, or -1 (and empty bits) when the request already has `maxTables`.
    mutating func take(family: Int, script: Int32, face: FontFace, into bits: inout [UInt64]) -> Int {
        var slot = keys.firstIndex { $0.family == family && $0.script == script && $0.face === face } ?? -1
        if slot < 0 {
            guard keys.count < Self.maxTables else { bits = []; return -1 }
            keys.append((family, script, face))
            tables.append([])
            slot = keys.count - 1
        }
        swap(&bits, &tables[slot])
        return slot
    }

    /// Moves `bits` back into its slot (if it came from one) and leaves `bits` empty.
    mutating func handBack(_ bits: inout [UInt64], slot: inout Int) {
        if slot >= 0 { swap(&bits, &tables[slot]) }
        bits = []
        slot = -1
    }

    /// Sets `unit`'s bit, growing the table as far as it.
    static func learn(_ unit: Int, in bits: inout [UInt64]) {
        let word = unit >> 6
        if word >= bits.count { bits.append(contentsOf: repeatElement(0, count: word + 1 - bits.count)) }
        bits[word] |= 1 << UInt64(unit & 63)
    }
}
