import CHarfBuzz
import CICUShim

/// A Unicode script as ICU numbers it (UScriptCode). Common (0) and Inherited (1) are
/// resolved to their neighbours before shaping.
struct Script: Hashable, Sendable {
    var code: Int32

    static let common = Script(code: 0)
    static let inherited = Script(code: 1)

    /// The script of a code point.
    init(of scalar: UInt32) {
        if scalar < 0x10000 {
            let known = Script.bmpScripts[Int(scalar)]
            if known != 0xFF { code = Int32(known); return }
        }
        code = ldicu_script(scalar)
    }

    /// ICU's script of every BMP code point (0xFF for a code above 254, asked of ICU each
    /// time), made on first use.
    static let bmpScripts: [UInt8] = (0..<0x10000).map { u in
        let code = ldicu_script(UInt32(u))
        return code >= 0 && code < 0xFF ? UInt8(code) : 0xFF
    }
    init(code: Int32) { self.code = code }

    var isResolved: Bool { code > 1 }

    /// ISO 15924 tag, e.g. "Arab".
    var tag: String { String(cString: ldicu_script_tag(code)) }

    /// The language fallback fonts are sorted for: `preferred` (the request's) when it is
    /// written in this script, else the script's most common language, else `preferred`.
    func language(preferring preferred: String) -> String {
        let tag = self.tag
        let base = preferred.split(separator: "-").first.map { String($0).lowercased() } ?? ""
        if let languages = Script.languagesByTag[tag] {
            return languages.contains(base) ? preferred : languages[0]
        }
        return preferred
    }

    /// The languages (ISO 639-1) that fontconfig knows well for scripts whose fonts differ
    /// by language or by script; the first is the default.
    static let languagesByTag: [String: [String]] = [
        "Arab": ["ar", "fa", "ur", "ps", "ug", "ku", "sd"], "Hebr": ["he", "yi"], "Deva": ["hi", "mr", "ne", "sa"],
        "Beng": ["bn", "as"], "Taml": ["ta"], "Telu": ["te"], "Knda": ["kn"], "Mlym": ["ml"], "Gujr": ["gu"],
        "Guru": ["pa"], "Orya": ["or"], "Sinh": ["si"], "Thai": ["th"], "Laoo": ["lo"], "Khmr": ["km"],
        "Mymr": ["my"], "Tibt": ["bo"], "Ethi": ["am", "ti"], "Geor": ["ka"], "Armn": ["hy"],
        "Hani": ["zh-cn", "zh", "ja", "ko"], "Hira": ["ja"], "Kana": ["ja"], "Hang": ["ko"], "Bopo": ["zh-tw"],
        "Grek": ["el"], "Cyrl": ["ru", "uk", "bg", "sr", "be", "mk", "kk"],
    ]

    /// HarfBuzz's script value.
    var harfBuzz: hb_script_t { hb_script_from_string(ldicu_script_tag(code), -1) }
}

/// Resolves the script of every grapheme cluster: a cluster takes the script of its first
/// code point that has a real one; clusters of only Common or Inherited characters
/// (spaces, punctuation, digits) take the script before them, or after them at the start.
/// `clusterStarts` holds each cluster's first UTF-16 offset, with the end appended.
func resolveClusterScripts(text: UnsafeBufferPointer<UInt16>, clusterStarts: [Int32]) -> [Script] {
    let clusters = max(clusterStarts.count - 1, 0)
    // Through buffers: the BMP table, the starts and the result are read and written in place.
    return Script.bmpScripts.withUnsafeBufferPointer { table in
        clusterStarts.withUnsafeBufferPointer { starts in
            [Script](capacity: clusters, blank: .common) { out, count in
                var last: Script?
                for c in 0..<clusters {
                    var i = Int(starts[c])
                    let end = Int(starts[c + 1])
                    var found: Script?
                    while i < end {
                        let u = text[i]
                        var width = 1
                        let s: Script
                        if u & 0xF800 != 0xD800, table[Int(u)] != 0xFF {
                            s = Script(code: Int32(table[Int(u)]))
                        } else {
                            let (scalar, w) = decodeUTF16(text, at: i)
                            width = w
                            s = Script(of: scalar)
                        }
                        if s.isResolved { found = s; break }
                        i += width
                    }
                    if let found {
                        // Clusters before the first resolved one take its script.
                        if last == nil { for k in 0..<c { out[k] = found } }
                        out[c] = found
                        last = found
                    } else {
                        out[c] = last ?? .common   // nothing but Common so far: Common
                    }
                }
                count = clusters
            }
        }
    }
}

/// The scalar at UTF-16 offset `i` and how many units it takes (a lone surrogate decodes as
/// U+FFFD, one unit).
@inline(__always)
func decodeUTF16(_ text: UnsafeBufferPointer<UInt16>, at i: Int) -> (UInt32, Int) {
    let u = text[i]
    if u & 0xFC00 == 0xD800, i + 1 < text.count {
        let v = text[i + 1]
        if v & 0xFC00 == 0xDC00 {
            return (0x10000 + ((UInt32(u) - 0xD800) << 10) + (UInt32(v) - 0xDC00), 2)
        }
    }
    if u & 0xF800 == 0xD800 { return (0xFFFD, 1) }
    return (UInt32(u), 1)
}
