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
        // followed by a trail one made 4 bytes and one code point (every pair is a trail and
        // the unit before it, so none overlap). Four units at a time while none is a
        // surrogate, as most text has none.
        var utf8 = 0, pairs = 0
        units.withUnsafeBufferPointer { u in
            guard let base = u.baseAddress else { return }
            var i = 0
            var previousIsLead = false
            while i < u.count {
                if i + 4 <= u.count, let bytes = Self.utf8LengthWithoutSurrogates(base + i) {
                    utf8 &+= bytes
                    previousIsLead = false
                    i += 4
                    continue
                }
                let unit = base[i], top = unit >> 10   // 0x36: a lead surrogate, 0x37: a trail
                utf8 &+= unit < 0x80 ? 1 : (unit < 0x800 ? 2 : 3)
                pairs &+= top == 0x37 && previousIsLead ? 1 : 0
                previousIsLead = top == 0x36
                i += 1
            }
        }
        self.init(utf16: units.count, utf8: utf8 - 2 * pairs, utf32: units.count - pairs, lines: lines, height: height)
    }

    /// The UTF-8 length of the four units at `p`, or nil when one is a surrogate: each
    /// 16-bit lane of one 64-bit word tested at once (a lane is nonzero under a mask when
    /// adding 0x7FFF to its low 15 bits, or its top bit, sets bit 15).
    @inline(__always)
    private static func utf8LengthWithoutSurrogates(_ p: UnsafePointer<UInt16>) -> Int? {
        let word = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
        let lanes: UInt64 = 0x0001_0001_0001_0001
        func nonzeroLanes(_ x: UInt64) -> UInt64 { (((x & (0x7FFF &* lanes)) &+ 0x7FFF &* lanes) | x) & (0x8000 &* lanes) }
        // A surrogate's top five bits are 11011: its lane of `word ^ 0xD800…` under 0xF800 is zero.
        let surrogates = ~nonzeroLanes((word ^ (0xD800 &* lanes)) & (0xF800 &* lanes)) & (0x8000 &* lanes)
        guard surrogates == 0 else { return nil }
        // Per lane 1 for two bytes or more, 1 more for three; the lanes summed into the top
        // one by a multiplication (a population count is no single instruction on every x86-64).
        let extra = (nonzeroLanes(word & (0xFF80 &* lanes)) >> 15) &+ (nonzeroLanes(word & (0xF800 &* lanes)) >> 15)
        return 4 + Int((extra &* lanes) >> 48)
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
