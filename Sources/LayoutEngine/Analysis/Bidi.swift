import CICUShim

/// Base direction of a paragraph.
public enum ParagraphDirection: String, Sendable, CaseIterable {
    /// From the first strong character (UAX #9 P2–P3), left-to-right when there is none.
    case auto
    case ltr
    case rtl
}

/// One paragraph's bidi resolution (UAX #9, by ICU): embedding levels per UTF-16 unit, the
/// paragraph level, and each line's visual order. Owns the ICU objects, freed in `deinit`.
/// The text buffer it was made from must outlive it. Not thread-safe (one request uses it).
final class BidiParagraph {
    /// ICU's paragraph, or nil for text whose every unit is at the paragraph level, left to
    /// right or right to left throughout (see `init`).
    private let handle: OpaquePointer?
    /// A copy of the text handed to ICU when it had to be changed (see `init`); ICU keeps a
    /// pointer to the text it was given, so the copy lives as long as the handle.
    private let substitute: UnsafeMutableBufferPointer<UInt16>?
    /// Level of every UTF-16 unit of the paragraph (before L1).
    let levels: [UInt8]
    /// 0 left-to-right, 1 right-to-left.
    let paragraphLevel: UInt8

    var isRTL: Bool { paragraphLevel & 1 == 1 }

    /// A run of one line in visual order: a paragraph-relative range at one level (after L1).
    struct VisualRun: Equatable {
        var start: Int
        var end: Int
        var level: UInt8
        var isRTL: Bool { level & 1 == 1 }
    }

    /// Whether each BMP code point can raise a left-to-right paragraph's levels (a bit per
    /// code point, from ICU's Bidi_Class; see `ldicu_bidi_may_raise`), made on first use.
    static let bmpMayRaise: [UInt64] = {
        var bits = [UInt64](repeating: 0, count: 0x10000 / 64)
        for u in 0..<0x10000 where ldicu_bidi_may_raise(UInt32(u)) != 0 { bits[u >> 6] |= 1 << UInt64(u & 63) }
        return bits
    }()

    /// Each BMP code point's `ldicu_bidi_rtl_class` (1 strong right to left, 2 breaks a
    /// right-to-left paragraph's single level), two bits a code point, made on first use.
    static let bmpRightToLeftClass: [UInt64] = {
        var bits = [UInt64](repeating: 0, count: 0x10000 / 32)
        for u in 0..<0x10000 {
            let kind = UInt64(ldicu_bidi_rtl_class(UInt32(u)))
            if kind != 0 { bits[u >> 5] |= kind << UInt64((u & 31) * 2) }
        }
        return bits
    }()

    /// Whether every unit of `text` resolves to level 1 in a paragraph that is right to left
    /// (`direction` .rtl, or .auto with a strong right-to-left character first): nothing in
    /// it is L, EN, AN or an explicit embedding, override or isolate. UAX #9 then resolves
    /// every neutral and mark between the paragraph's right-to-left edges (sos, eos) and its
    /// R and AL characters to R (W1, N1), and L1 keeps separators and trailing white space
    /// at the paragraph level, 1; ICU need not be asked.
    static func isPureRightToLeft(_ text: UnsafeBufferPointer<UInt16>, direction: ParagraphDirection) -> Bool {
        guard direction != .ltr else { return false }
        var strong = direction == .rtl
        return bmpRightToLeftClass.withUnsafeBufferPointer { bits in
            var i = 0
            let n = text.count
            while i < n {
                let u = text[i]
                let kind: UInt64
                if u & 0xFC00 == 0xD800, i + 1 < n, text[i + 1] & 0xFC00 == 0xDC00 {
                    let scalar = 0x10000 + ((UInt32(u) - 0xD800) << 10) + (UInt32(text[i + 1]) - 0xDC00)
                    kind = UInt64(ldicu_bidi_rtl_class(scalar))
                    i += 2
                } else {
                    kind = (bits[Int(u >> 5)] >> UInt64((u & 31) * 2)) & 3
                    i += 1
                }
                if kind == 2 { return false }
                if kind == 1 { strong = true }
            }
            return strong
        }
    }

    /// Whether every unit of `text` resolves to level 0 in a paragraph that is not right to
    /// left: nothing in it is R, AL, AN or an explicit embedding, override or isolate. UAX #9
    /// then leaves every level at 0 (W7 makes European digits L after sos L), and ICU need
    /// not be asked.
    static func isPlainLeftToRight(_ text: UnsafeBufferPointer<UInt16>) -> Bool {
        bmpMayRaise.withUnsafeBufferPointer { bits in
            var i = 0
            let n = text.count
            while i < n {
                let u = text[i]
                // Below U+0590 (Hebrew) no character raises a level.
                if u < 0x0590 { i += 1; continue }
                if u & 0xFC00 == 0xD800, i + 1 < n, text[i + 1] & 0xFC00 == 0xDC00 {
                    let scalar = 0x10000 + ((UInt32(u) - 0xD800) << 10) + (UInt32(text[i + 1]) - 0xDC00)
                    if ldicu_bidi_may_raise(scalar) != 0 { return false }
                    i += 2
                    continue
                }
                if bits[Int(u >> 6)] & (1 << UInt64(u & 63)) != 0 { return false }
                i += 1
            }
            return true
        }
    }

    /// Fails only when ICU does. `plainFastPath: false` asks ICU even for text of one level
    /// throughout, plain left to right or purely right to left (tests compare the two).
    /// `ownsText`: ICU is given a copy of the text, so that the resolution may outlive it
    /// (`KeptShaping`).
    init(text: UnsafeBufferPointer<UInt16>, direction: ParagraphDirection, plainFastPath: Bool = true,
         ownsText: Bool = false) throws {
        let uniform: UInt8? = !plainFastPath ? nil
            : direction != .rtl && Self.isPlainLeftToRight(text) ? 0
            : Self.isPureRightToLeft(text, direction: direction) ? 1 : nil
        if let uniform {
            handle = nil
            substitute = nil
            levels = [UInt8](filledWith: uniform, count: text.count)
            paragraphLevel = uniform
            return
        }
        let requested: UInt8 = switch direction {
        case .auto: 0xFE  // UBIDI_DEFAULT_LTR
        case .ltr: 0
        case .rtl: 1
        }
        // U+001C–U+001E are paragraph separators to ICU (Bidi_Class B) but not to layoutd,
        // whose paragraphs end only at LF, CR, NEL and U+2029: ICU would split the paragraph
        // there and refuse lines across the split. They go to ICU as U+001F, a segment
        // separator (class S), which resets embedding levels the same way within a line.
        // With `ownsText` ICU is always given the copy, so that it never points at the caller's text.
        var substitute: UnsafeMutableBufferPointer<UInt16>?
        if ownsText || text.contains(where: { $0 >= 0x1C && $0 <= 0x1E }) {
            let copy = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: max(1, text.count))
            for (i, u) in text.enumerated() { copy[i] = (u >= 0x1C && u <= 0x1E) ? 0x1F : u }
            substitute = copy
        }
        let source = substitute.map { UnsafeBufferPointer(rebasing: $0[0..<text.count]) } ?? text
        var status: Int32 = 0
        guard let handle = ldicu_bidi_open(source.baseAddress, Int32(text.count), requested, &status) else {
            substitute?.deallocate()
            throw EngineError.icuFailed(operation: "ubidi_setPara", code: status)
        }
        self.handle = handle
        self.substitute = substitute
        var levels = [UInt8](filledWith: 0, count: text.count)
        let result = levels.withUnsafeMutableBufferPointer { ldicu_bidi_levels(handle, $0.baseAddress) }
        guard result <= 0 else {
            ldicu_bidi_close(handle)
            substitute?.deallocate()
            throw EngineError.icuFailed(operation: "ubidi_getLevels", code: result)
        }
        self.levels = levels
        self.paragraphLevel = ldicu_bidi_paragraph_level(handle)
    }

    deinit {
        if let handle { ldicu_bidi_close(handle) }
        substitute?.deallocate()
    }

    /// The visual runs of the line `start..<end`, left to right (UAX #9 L1: trailing white
    /// space and segment separators take the paragraph level; L2: reversal by level).
    /// `lineLevels`, when given, receives the line's levels after L1.
    func visualRuns(_ start: Int, _ end: Int, lineLevels: UnsafeMutablePointer<UInt8>? = nil) throws -> [VisualRun] {
        guard end > start else { return [] }
        guard let handle else {
            // One level throughout: one run at the paragraph's level.
            lineLevels?.update(repeating: paragraphLevel, count: end - start)
            return [VisualRun(start: start, end: end, level: paragraphLevel)]
        }
        let capacity = end - start
        var starts = [Int32](filledWith: 0, count: capacity)
        var lengths = [Int32](filledWith: 0, count: capacity)
        var runLevels = [UInt8](filledWith: 0, count: capacity)
        var status: Int32 = 0
        let count = ldicu_bidi_line(handle, Int32(start), Int32(end), &starts, &lengths, &runLevels,
                                    Int32(capacity), lineLevels, &status)
        guard count >= 0 else { throw EngineError.icuFailed(operation: "ubidi_setLine", code: status) }
        return (0..<Int(count)).map {
            VisualRun(start: Int(starts[$0]), end: Int(starts[$0] + lengths[$0]), level: runLevels[$0])
        }
    }
}
