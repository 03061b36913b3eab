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
        // Each unit as if alone (1, 2 or 3 bytes; a surrogate 3), then a lead surrogate
        // followed by a trail one made 4 bytes and one code point: counted without a branch
        // per unit (every pair is a trail and the unit before it, so none overlap).
        var utf8 = 0, pairs = 0
        units.withUnsafeBufferPointer { u in
            guard let base = u.baseAddress else { return }
            var previousIsLead = false
            for i in 0..<u.count {
                let unit = base[i], top = unit >> 10   // 0x36: a lead surrogate, 0x37: a trail
                utf8 &+= unit < 0x80 ? 1 : (unit < 0x800 ? 2 : 3)
                pairs &+= top == 0x37 && previousIsLead ? 1 : 0
                previousIsLead = top == 0x36
            }
        }
        self.init(utf16: units.count, utf8: utf8 - 2 * pairs, utf32: units.count - pairs, lines: lines, height: height)
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
