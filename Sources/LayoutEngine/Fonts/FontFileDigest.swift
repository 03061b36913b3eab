#if canImport(Glibc)
import Glibc
#endif

/// The content hash of a font file's faces, for the font fingerprint. An OpenType file (or
/// collection) is known by its table directories: each table's tag, checksum and length
/// (OpenType, "Table Directory" and "TTC Header"), read from a few hundred bytes; any other
/// file by all its bytes (by its first and last MiB and its size, past 64 MiB). Owns the
/// file's descriptor while it reads.
final class FontFileDigest {
    private let descriptor: Int32
    private let size: Int

    init(path: String) {
        descriptor = path.withCString { p in Self.retrying { open(p, O_RDONLY | O_CLOEXEC) } }
        var info = stat()
        size = descriptor >= 0 && fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// The hash of face `index` (fontconfig's: the face in a collection in the low 16 bits,
    /// the named instance of a variable font above them); 0 when the file cannot be read.
    func face(_ index: Int) -> UInt64 {
        guard descriptor >= 0 else { return 0 }
        var hash = FNV1a()
        withUnsafeBytes(of: UInt64(index >> 16).littleEndian) { hash.mix($0) }
        if let directory = tableDirectory(face: index & 0xFFFF) {
            hash.mix(directory)
        } else {
            mixWholeFile(into: &hash)
        }
        return hash.value
    }

    private func tableDirectory(face: Int) -> [UInt8]? {
        guard let header = read(at: 0, count: 12) else { return nil }
        var offset = 0
        if Self.u32(header, 0) == 0x7474_6366 {   // "ttcf": a collection's header
            guard face < Int(Self.u32(header, 8)), let entry = read(at: 12 + 4 * face, count: 4) else { return nil }
            offset = Int(Self.u32(entry, 0))
        }
        guard let table = read(at: offset, count: 12) else { return nil }
        // TrueType outlines (0x00010000 or "true") or CFF ("OTTO").
        guard [0x0001_0000, 0x4F54_544F, 0x7472_7565].contains(Self.u32(table, 0)) else { return nil }
        let count = Int(Self.u32(table, 4) >> 16)
        guard let records = read(at: offset + 12, count: 16 * count) else { return nil }
        var kept: [UInt8] = []
        kept.reserveCapacity(12 * count)
        for r in stride(from: 0, to: records.count, by: 16) {
            kept += records[r..<(r + 8)]            // tag, checksum
            kept += records[(r + 12)..<(r + 16)]    // length (not where the table sits)
        }
        return kept
    }

    private func mixWholeFile(into hash: inout FNV1a) {
        withUnsafeBytes(of: UInt64(size).littleEndian) { hash.mix($0) }
        let chunk = 1 << 20
        let ranges = size <= 64 << 20 ? stride(from: 0, to: size, by: chunk).map { $0..<min($0 + chunk, size) }
            : [0..<chunk, (size - chunk)..<size]
        for range in ranges {
            guard let bytes = read(at: range.lowerBound, count: range.count) else { return }
            hash.mix(bytes)
        }
    }

    /// `count` bytes at `offset`, or nil when the file has not that many there.
    private func read(at offset: Int, count: Int) -> [UInt8]? {
        guard count >= 0, offset >= 0, offset + count <= size else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                Self.retrying { pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset + done)) }
            }
            guard n > 0 else { return nil }
            done += n
        }
        return bytes
    }

    /// A whole small file's bytes (at most `limit`), or nil.
    static func contents(of path: String, limit: Int) -> [UInt8]? {
        let file = FontFileDigest(path: path)
        guard file.descriptor >= 0, file.size <= limit else { return nil }
        return file.read(at: 0, count: file.size)
    }

    /// A system call's result, called again while it fails with EINTR.
    private static func retrying<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }

    private static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}
