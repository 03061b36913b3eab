/// A failure of the glyph rasterizer. `description` says what failed and for which font,
/// glyph or size, in words a person can act on.
public struct GlyphRasterizerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Equatable, Sendable {
        /// FreeType could not be initialized.
        case libraryUnavailable
        /// The font file does not exist.
        case fontNotFound
        /// The font file exists but FreeType cannot open that face of it.
        case unreadableFont
        /// The pixel size is not finite, not positive, or larger than 2048.
        case invalidPixelSize
        /// The face index is negative, or the glyph id is not a glyph of the face.
        case invalidGlyph
        /// FreeType failed to size, load or render the glyph.
        case renderFailed
    }

    /// What went wrong.
    public var kind: Kind
    /// The FreeType error code (`FT_Error`) when FreeType reported the failure, else nil.
    public var freeTypeError: Int32?
    /// A sentence describing the failure.
    public var message: String

    /// Makes an error of `kind` with `message`; `freeTypeError`, when given, is appended to
    /// the description with its meaning.
    public init(_ kind: Kind, _ message: String, freeTypeError: Int32? = nil) {
        self.kind = kind
        self.message = message
        self.freeTypeError = freeTypeError
    }

    /// The message, followed by FreeType's error code and its meaning when there is one.
    public var description: String {
        guard let code = freeTypeError else { return message }
        return "\(message) (FreeType error 0x\(String(code, radix: 16)): \(Self.meaning(of: code)))"
    }

    /// Words for the FreeType errors a rasterizer meets (libfreetype is usually built
    /// without FT_Error_String's table).
    static func meaning(of code: Int32) -> String {
        switch code {
        case 0x01: return "cannot open resource"
        case 0x02: return "unknown file format"
        case 0x03: return "broken file"
        case 0x06: return "invalid argument"
        case 0x07: return "unimplemented feature"
        case 0x08: return "broken table"
        case 0x10: return "invalid glyph index"
        case 0x12: return "unsupported glyph image format"
        case 0x17: return "invalid pixel size"
        case 0x24: return "invalid size handle"
        case 0x40: return "out of memory"
        case 0x9D: return "missing bitmap in strike"
        default: return "see fterrdef.h"
        }
    }
}
