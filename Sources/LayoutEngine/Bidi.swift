import CICUShim

/// Base direction of a paragraph.
public enum ParagraphDirection: String, Sendable, CaseIterable {
    /// From the first strong character (UAX #9 P2–P3), left-to-right when there is none.
    case auto
    case ltr
    case rtl
}

/// Bidi embedding levels of one paragraph, one per UTF-16 unit (UAX #9, via ICU), and the
/// paragraph's resolved level (0 left-to-right, 1 right-to-left).
struct BidiLevels {
    var levels: [UInt8]
    var paragraphLevel: UInt8

    var isRTL: Bool { paragraphLevel & 1 == 1 }

    /// Fails only when ICU does.
    init(text: UnsafeBufferPointer<UInt16>, direction: ParagraphDirection) throws {
        let requested: UInt8 = switch direction {
        case .auto: 0xFE  // UBIDI_DEFAULT_LTR
        case .ltr: 0
        case .rtl: 1
        }
        guard text.count > 0 else {
            levels = []
            paragraphLevel = requested == 0xFE ? 0 : requested
            return
        }
        var levels = [UInt8](repeating: 0, count: text.count)
        var resolved: UInt8 = 0
        let status = levels.withUnsafeMutableBufferPointer {
            ldicu_bidi_levels(text.baseAddress, Int32(text.count), requested, $0.baseAddress, &resolved)
        }
        guard status <= 0 else { throw EngineError.icuFailed(operation: "ubidi_setPara", code: status) }
        self.levels = levels
        self.paragraphLevel = resolved
    }
}
