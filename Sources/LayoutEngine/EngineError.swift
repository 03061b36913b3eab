/// Errors the engine raises. Each carries enough for a person to act on; the server turns
/// them into JSON-RPC errors.
public enum EngineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The fontconfig configuration file could not be read or parsed.
    case fontConfigurationFailed(path: String)
    /// fontconfig found no font at all for a request (an empty font configuration).
    case noFontsAvailable(family: String)
    /// A font file could not be opened or holds no glyphs.
    case unreadableFont(path: String, index: Int)
    /// A font file is truncated or its table directory points past its end.
    case damagedFont(path: String, reason: String)
    /// ICU refused an operation; `code` is its UErrorCode.
    case icuFailed(operation: String, code: Int32)
    /// The text is longer than the engine accepts.
    case textTooLong(length: Int, limit: Int)
    /// The request was cancelled while it ran.
    case cancelled
    /// The request ran past its time limit.
    case timeLimitExceeded(seconds: Double)
    /// The request used more CPU time than its limit.
    case cpuLimitExceeded(seconds: Double)

    public var description: String {
        switch self {
        case .fontConfigurationFailed(let path):
            return "cannot load the fontconfig configuration \(path)"
        case .noFontsAvailable(let family):
            return "no font is available for family \"\(family)\": the font configuration lists no fonts"
        case .unreadableFont(let path, let index):
            return "cannot read font \(path) (face \(index))"
        case .damagedFont(let path, let reason):
            return "font \(path) is damaged: \(reason)"
        case .icuFailed(let operation, let code):
            return "ICU failed in \(operation) (UErrorCode \(code))"
        case .textTooLong(let length, let limit):
            return "text is \(length) UTF-16 units long; the limit is \(limit)"
        case .cancelled:
            return "request cancelled"
        case .timeLimitExceeded(let seconds):
            return "the request ran past the time limit of \(seconds) s"
        case .cpuLimitExceeded(let seconds):
            return "the request used more than its limit of \(seconds) s of CPU time"
        }
    }
}
