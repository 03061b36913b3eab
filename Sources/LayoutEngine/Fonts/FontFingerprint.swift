import CFontconfig
import CHarfBuzz
import CICUShim
#if canImport(Glibc)
import Glibc
#endif

/// One thing a fingerprint covers, with its own hash or version.
public struct FingerprintPart: Sendable, Equatable {
    public let name: String
    public let value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// What decides a layout besides its request, hashed so that two daemons that give the same
/// answers report the same fingerprint, wherever their fonts live and whenever they were
/// installed, and any change of a font or a rule gives another:
/// - `faces`: every face's content, as its OpenType table directory gives it (each table's
///   tag, length and checksum, which font tools compute over every byte of the table:
///   OpenType, "Table Directory"; a font rebuilt or replaced gives other checksums), and its
///   named instance; files that are not OpenType by all their bytes;
/// - `rules`: the text of every fontconfig file loaded, without the elements that name
///   folders (`dir`, `cachedir`, `include`: fontconfig's fonts-conf(5));
/// - `harfbuzz` and `icu`: the versions of the libraries in use;
/// - the caller's parts (layoutd's version, FreeType's).
public struct FontFingerprint: Sendable {
    /// 16 hex digits.
    public let value: String
    public let parts: [FingerprintPart]

    init(configuration: FontConfiguration, callerParts: [FingerprintPart]) {
        var icu = [CChar](repeating: 0, count: 32)
        ldicu_icu_version(&icu)
        parts = [FingerprintPart(name: "faces", value: Self.hex(Self.facesHash(configuration))),
                 FingerprintPart(name: "rules", value: Self.hex(Self.rulesHash(configuration))),
                 FingerprintPart(name: "harfbuzz", value: String(cString: hb_version_string())),
                 FingerprintPart(name: "icu", value: String(cString: icu))] + callerParts
        var hash = FNV1a()
        for part in parts { hash.mix("\(part.name)=\(part.value)\n".utf8) }
        value = Self.hex(hash.value)
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The faces' content hashes, in sorted order: the set of faces, not their places. Each
    /// file is open only while its own faces are read.
    private static func facesHash(_ configuration: FontConfiguration) -> UInt64 {
        var indices: [String: [Int32]] = [:]
        for (path, index) in configuration.faces { indices[path, default: []].append(index) }
        var digests: [UInt64] = []
        for (path, faces) in indices {
            let file = FontFileDigest(path: path)
            digests += faces.map { file.face(Int($0)) }
        }
        var hash = FNV1a()
        for digest in digests.sorted() { withUnsafeBytes(of: digest.littleEndian) { hash.mix($0) } }
        return hash.value
    }

    /// The loaded fontconfig files' rules, in the order fontconfig read them.
    private static func rulesHash(_ configuration: FontConfiguration) -> UInt64 {
        var hash = FNV1a()
        for path in configuration.configurationFiles {
            guard let text = FontFileDigest.contents(of: path, limit: 4 << 20) else {
                hash.mix("(unreadable)".utf8)
                continue
            }
            hash.mix(Self.withoutFolders(text))
        }
        return hash.value
    }

    /// `text` (a fontconfig file) without its `dir`, `cachedir` and `include` elements.
    static func withoutFolders(_ text: [UInt8]) -> [UInt8] {
        let names: [[UInt8]] = ["dir", "cachedir", "include"].map { Array($0.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = 0
        while i < text.count {
            if text[i] == UInt8(ascii: "<"), let name = names.first(where: { Self.opens($0, text, at: i) }),
               let end = Self.elementEnd(name, text, from: i) {
                i = end
                continue
            }
            out.append(text[i])
            i += 1
        }
        return out
    }

    /// Whether `text[at...]` is `<name` followed by white space, `>` or `/`.
    private static func opens(_ name: [UInt8], _ text: [UInt8], at: Int) -> Bool {
        let after = at + 1 + name.count
        guard after < text.count, text[(at + 1)..<after].elementsEqual(name) else { return false }
        return [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: ">"), UInt8(ascii: "/")].contains(text[after])
    }

    /// The offset past the element that opens at `start`: past `/>` for an empty one, else
    /// past `</name>`; nil when it does not end.
    private static func elementEnd(_ name: [UInt8], _ text: [UInt8], from start: Int) -> Int? {
        guard let close = text[start...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
        if text[close - 1] == UInt8(ascii: "/") { return close + 1 }
        let closing = Array("</".utf8) + name + [UInt8(ascii: ">")]
        var i = close + 1
        while i + closing.count <= text.count {
            if text[i] == UInt8(ascii: "<"), text[i..<(i + closing.count)].elementsEqual(closing) { return i + closing.count }
            i += 1
        }
        return nil
    }
}
