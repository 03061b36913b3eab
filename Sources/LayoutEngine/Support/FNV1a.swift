/// FNV-1a, 64-bit, over bytes: a quick hash, not a secure one — the font set's fingerprint
/// (`FontFingerprint`) and the shape cache file's checksum.
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf29ce484222325

    mutating func mix(_ bytes: some Sequence<UInt8>) {
        for b in bytes { value = (value ^ UInt64(b)) &* 0x100000001b3 }
    }

    /// The hash of `bytes` alone.
    static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var h = FNV1a()
        h.mix(bytes)
        return h.value
    }
}
