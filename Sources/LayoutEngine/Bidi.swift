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
    private let handle: OpaquePointer
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

    /// Fails only when ICU does.
    init(text: UnsafeBufferPointer<UInt16>, direction: ParagraphDirection) throws {
        let requested: UInt8 = switch direction {
        case .auto: 0xFE  // UBIDI_DEFAULT_LTR
        case .ltr: 0
        case .rtl: 1
        }
        var status: Int32 = 0
        guard let handle = ldicu_bidi_open(text.baseAddress, Int32(text.count), requested, &status) else {
            throw EngineError.icuFailed(operation: "ubidi_setPara", code: status)
        }
        self.handle = handle
        var levels = [UInt8](repeating: 0, count: text.count)
        let result = levels.withUnsafeMutableBufferPointer { ldicu_bidi_levels(handle, $0.baseAddress) }
        guard result <= 0 else {
            ldicu_bidi_close(handle)
            throw EngineError.icuFailed(operation: "ubidi_getLevels", code: result)
        }
        self.levels = levels
        self.paragraphLevel = ldicu_bidi_paragraph_level(handle)
    }

    deinit { ldicu_bidi_close(handle) }

    /// The visual runs of the line `start..<end`, left to right (UAX #9 L1: trailing white
    /// space and segment separators take the paragraph level; L2: reversal by level).
    /// `lineLevels`, when given, receives the line's levels after L1.
    func visualRuns(_ start: Int, _ end: Int, lineLevels: UnsafeMutablePointer<UInt8>? = nil) throws -> [VisualRun] {
        guard end > start else { return [] }
        let capacity = end - start
        var starts = [Int32](repeating: 0, count: capacity)
        var lengths = [Int32](repeating: 0, count: capacity)
        var runLevels = [UInt8](repeating: 0, count: capacity)
        var status: Int32 = 0
        let count = ldicu_bidi_line(handle, Int32(start), Int32(end), &starts, &lengths, &runLevels,
                                    Int32(capacity), lineLevels, &status)
        guard count >= 0 else { throw EngineError.icuFailed(operation: "ubidi_setLine", code: status) }
        return (0..<Int(count)).map {
            VisualRun(start: Int(starts[$0]), end: Int(starts[$0] + lengths[$0]), level: runLevels[$0])
        }
    }
}
