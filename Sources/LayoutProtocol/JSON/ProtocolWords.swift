/// The protocol's own words — JSON-RPC's members, the methods, the members of the params
/// and the values they name — as strings made once. Most keys and many strings of a
/// request are these; finding one by its bytes costs a fraction of making and validating a
/// new string, and it is the same string either way.
enum ProtocolWords {
    /// A word of at most 16 ASCII bytes, packed little-endian into two words.
    struct Packed: Equatable {
        var low: UInt64
        var high: UInt64

        /// `bytes` packed, or nil when they are more than 16 or not all ASCII.
        @inline(__always)
        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            let n = bytes.count
            guard n <= 16 else { return nil }
            var low: UInt64 = 0, high: UInt64 = 0, any: UInt8 = 0
            for i in 0..<min(n, 8) {
                low |= UInt64(bytes[i]) << (8 * UInt64(i))
                any |= bytes[i]
            }
            if n > 8 {
                for i in 8..<n {
                    high |= UInt64(bytes[i]) << (8 * UInt64(i - 8))
                    any |= bytes[i]
                }
            }
            guard any < 0x80 else { return nil }
            self.low = low
            self.high = high
        }
    }

    static let words: [String] = [
        // JSON-RPC 2.0 and the methods.
        "jsonrpc", "2.0", "id", "method", "params", "result", "error", "code", "message", "data",
        "initialize", "ping", "stats", "reload", "layout", "measure", "update", "release", "caret",
        "hitTest", "rects", "boundaries", "lineRange", "selectedText", "word", "render", "$/cancelRequest",
        // The layout params and their members.
        "text", "width", "widths", "font", "family", "size", "weight", "style", "features", "variations",
        "language", "direction", "ltr", "rtl", "auto", "detail", "lines", "runs", "glyphs", "full",
        "paragraph", "align", "start", "end", "center", "left", "right", "justify", "wrap", "wrapStyle",
        "greedy", "optimal", "pretty", "balance", "hyphenation", "none", "manual", "lineSpacing",
        "lineHeight", "letterSpacing", "headIndent", "tailIndent", "firstLineIndent", "tabStops",
        "paragraphSpacing", "maxLines", "truncation", "token", "insets", "top", "bottom", "exclusions",
        "scale", "spans", "attachments", "detectors", "decorations", "color", "handle", "retain",
        "edits", "viewport", "offset", "offsets", "affinity", "upstream", "downstream", "normal",
        "italic", "oblique", "bold", "underline", "x", "y", "kind", "link", "index", "line",
    ]

    /// The words by length (0…16), each with its packed bytes.
    static let byLength: [[(packed: Packed, word: String)]] = {
        var table = [[(packed: Packed, word: String)]](repeating: [], count: 17)
        for word in words {
            let packed = Array(word.utf8).withUnsafeBufferPointer { Packed($0) }
            if let packed { table[word.utf8.count].append((packed, word)) }
        }
        return table
    }()

    /// The word whose UTF-8 is `bytes`, or nil when it is none of them.
    @inline(__always)
    static func word(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let packed = Packed(bytes) else { return nil }
        for entry in byLength[bytes.count] where entry.packed == packed { return entry.word }
        return nil
    }
}
