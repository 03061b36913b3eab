import CFreeType

// The FreeType objects the rasterizer owns, and the values it keys and caches them by.

struct FaceKey: Hashable {
    var file: String
    var index: Int
}

/// Owns the `FT_Library`; closed after the last face that holds it.
final class FreeTypeLibrary {
    let handle: FT_Library
    init(_ handle: FT_Library) { self.handle = handle }
    deinit { FT_Done_FreeType(handle) }
}

struct VariationSetting: Equatable {
    var tag: UInt32
    var value: Double
}

/// One variation axis, in design units.
struct VariationAxis {
    var tag: UInt32
    var minimum, maximum: FT_Fixed
}

/// A glyph image copied out of FreeType.
struct GlyphImage: Sendable {
    var bitmap: GlyphRasterizer.GlyphBitmap
    var pixels: [UInt8]
}
