/// What a stretch of a document adds up to: its length in each offset encoding a session may
/// use (UTF-16 units, UTF-8 bytes, code points), its paragraphs, lines and height, and its
/// widest line's width. Summaries add (the widths by taking the larger), so a tree of
/// paragraphs keeps one per subtree and finds any offset or y in O(log n).
public struct TextSummary: Sendable, Equatable {
    public var utf16 = 0
    public var utf8 = 0
    public var utf32 = 0
    public var lines = 0
    public var height = 0.0
    public var paragraphs = 0
    /// The widest of the stretch (a maximum, not a sum: meaningless in a start's summary).
    public var widest = 0.0

    public static let zero = TextSummary()

    public init(utf16: Int = 0, utf8: Int = 0, utf32: Int = 0, lines: Int = 0, height: Double = 0) {
        self.utf16 = utf16; self.utf8 = utf8; self.utf32 = utf32; self.lines = lines; self.height = height
    }

    /// The lengths of `units` (UTF-16) in each encoding; a lone surrogate counts as one code
    /// point of three UTF-8 bytes, as its replacement character is written.
    public init(units: [UInt16], lines: Int = 0, height: Double = 0) {
        var utf8 = 0, utf32 = 0, i = 0
        let count = units.count
        units.withUnsafeBufferPointer { u in
            while i < count {
                let unit = u[i]
                if UTF16.isLeadSurrogate(unit), i + 1 < count, UTF16.isTrailSurrogate(u[i + 1]) {
                    utf8 += 4; utf32 += 1; i += 2
                    continue
                }
                utf8 += unit < 0x80 ? 1 : (unit < 0x800 ? 2 : 3)
                utf32 += 1
                i += 1
            }
        }
        self.init(utf16: count, utf8: utf8, utf32: utf32, lines: lines, height: height)
    }

    /// The length in `encoding`.
    public func length(_ encoding: TextEncoding) -> Int {
        switch encoding {
        case .utf16: utf16
        case .utf8: utf8
        case .utf32: utf32
        }
    }

    public static func + (a: TextSummary, b: TextSummary) -> TextSummary {
        var sum = TextSummary(utf16: a.utf16 + b.utf16, utf8: a.utf8 + b.utf8, utf32: a.utf32 + b.utf32,
                              lines: a.lines + b.lines, height: a.height + b.height)
        sum.paragraphs = a.paragraphs + b.paragraphs
        sum.widest = max(a.widest, b.widest)
        return sum
    }
}
