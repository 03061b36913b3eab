import CFreeType
import LayoutEngine
import Synchronization

// The glyph rasterizer for the `render` path: FreeType draws glyphs (coverage masks, color
// bitmaps) and walks outlines. Shaping and layout never use it; they work with HarfBuzz's
// own OpenType functions (see LayoutEngine's FontFace).
//
// The CFreeType shim includes FT_FREETYPE_H, FT_OUTLINE_H (FT_Outline_Decompose) and
// FT_MULTIPLE_MASTERS_H (FT_Get_MM_Var, FT_Done_MM_Var, FT_{Get,Set}_Var_Design_Coordinates
// and the FT_MM_Var/FT_Var_Axis structs), so all of FreeType is called directly.

/// Draws glyphs with FreeType: coverage masks for outline glyphs, premultiplied BGRA
/// bitmaps for color glyphs (CBDT/sbix bitmaps, COLR layers), and outlines as path segments.
///
/// Ownership: the rasterizer owns one `FT_Library` and a bounded cache (64 entries, least
/// recently used evicted) of `FT_Face`s keyed by file and face index. Each face is closed
/// (`FT_Done_Face`) when it leaves the cache or the rasterizer goes away; the library is
/// closed (`FT_Done_FreeType`) after its last face.
///
/// Thread safety: FreeType faces are not thread-safe, so every FreeType call runs under one
/// lock. Results are copied out of FreeType's buffers before the lock is released, and the
/// caller's closures run outside the lock (they may call the rasterizer again).
public final class GlyphRasterizer: @unchecked Sendable {
    /// A glyph image's geometry. `left` is the distance from the glyph origin to the
    /// bitmap's left edge and `top` the distance from the baseline up to its top row, in
    /// pixels (FreeType's `bitmap_left`/`bitmap_top`). Rows are `stride` bytes apart, top
    /// row first. When `isColor` is true each pixel is 4 bytes of premultiplied BGRA,
    /// otherwise 1 byte of coverage (0 = none, 255 = full). An empty glyph (a space) has
    /// width and height 0.
    public struct GlyphBitmap: Equatable, Sendable {
        /// Width and height in pixels (0 for a glyph that draws nothing).
        public var width, height: Int
        /// Offsets of the bitmap from the glyph origin: `left` rightwards to the left edge,
        /// `top` upwards from the baseline to the top row.
        public var left, top: Int
        /// Bytes from one row to the next (`width`, or `width * 4` for color).
        public var stride: Int
        /// Premultiplied BGRA when true, 8-bit coverage otherwise.
        public var isColor: Bool

        /// Makes a bitmap description from its fields.
        public init(width: Int, height: Int, left: Int, top: Int, stride: Int, isColor: Bool) {
            self.width = width
            self.height = height
            self.left = left
            self.top = top
            self.stride = stride
            self.isColor = isColor
        }
    }

    /// One step of a glyph outline, in pixels, y down, relative to the glyph origin.
    /// `quad` is (control x, control y, end x, end y); `cubic` is (control 1, control 2,
    /// end). Every contour starts with `move` and ends with `close`.
    public enum OutlineSegment: Equatable, Sendable {
        /// Starts a contour at (x, y).
        case move(Double, Double)
        /// A straight line to (x, y).
        case line(Double, Double)
        /// A quadratic Bézier through control (x, y) to (x, y).
        case quad(Double, Double, Double, Double)
        /// A cubic Bézier through two controls to (x, y).
        case cubic(Double, Double, Double, Double, Double, Double)
        /// Closes the contour back to its `move` point.
        case close
    }

    /// The largest pixel size (pixels per em) accepted.
    public static let maximumPixelSize: Double = 2048
    /// How many faces stay open at once.
    public static let faceCacheCapacity = 64

    private let library: FreeTypeLibrary
    private let faces: Mutex<BoundedCache<FaceKey, RasterFace>>
    /// Glyph images made recently (a text draws the same letters again and again). Bounded:
    /// at most `imageCacheCapacity` images of at most `maxCachedImageBytes` each.
    private let images = Mutex(BoundedCache<ImageKey, GlyphImage>(capacity: GlyphRasterizer.imageCacheCapacity))
    public static let imageCacheCapacity = 256
    public static let maxCachedImageBytes = 128 << 10

    private struct ImageKey: Hashable {
        var file: String
        var index: Int
        var tags: [UInt32]
        var values: [Double]
        var glyph: UInt32
        var pixelSize: Double
    }

    /// Initializes FreeType. Fails with `.libraryUnavailable` when `FT_Init_FreeType` fails.
    public init() throws {
        var handle: FT_Library?
        let error = FT_Init_FreeType(&handle)
        guard error == 0, let handle else {
            throw GlyphRasterizerError(.libraryUnavailable, "cannot initialize FreeType", freeTypeError: error)
        }
        self.library = FreeTypeLibrary(handle)
        self.faces = Mutex(BoundedCache(capacity: Self.faceCacheCapacity))
    }

    /// The version of the FreeType library in use, as "2.12.1".
    public var freeTypeVersion: String {
        var major: FT_Int = 0, minor: FT_Int = 0, patch: FT_Int = 0
        FT_Library_Version(library.handle, &major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }

    /// The glyph id face `index` of `file` maps `scalar` to through its Unicode character
    /// map, or nil when the face has no glyph for it. Fails when the font cannot be opened.
    public func glyphIndex(file: String, index: Int, scalar: Unicode.Scalar) throws -> UInt32? {
        let glyph: UInt32 = try faces.withLock { cache in
            let face = try self.face(file: file, index: index, cache: &cache)
            return UInt32(FT_Get_Char_Index(face.face, FT_ULong(scalar.value)))
        }
        return glyph == 0 ? nil : glyph
    }

    /// Rasterizes glyph `glyph` of face `index` of the font file `file` at `pixelSize`
    /// pixels per em with the variation axes `variations` applied, and calls `body` with the
    /// bitmap's geometry and its pixels, which are valid only inside `body`. Returns what
    /// `body` returns.
    ///
    /// Outline glyphs are rendered unhinted (matching the unhinted advances layout uses)
    /// as 8-bit coverage; color glyphs come back as premultiplied BGRA. A face with only
    /// fixed-size bitmaps (Noto Color Emoji) is drawn from the smallest strike at least
    /// `pixelSize` (else the largest) and resampled to `pixelSize`: a box filter when
    /// shrinking, bilinear when enlarging. `variations` set axes by tag (design values,
    /// clamped to each axis's range; tags the face lacks are ignored); axes not named keep
    /// the face's own values. The pixels are the rasterizer's own copy, so `body` runs
    /// outside the FreeType lock; the buffer must not escape `body`.
    ///
    /// Fails with `.invalidPixelSize` for a `pixelSize` not finite, ≤ 0 or > 2048,
    /// `.fontNotFound` naming a missing file, `.unreadableFont` for a face FreeType cannot
    /// open, `.invalidGlyph` for a glyph id ≥ the face's glyph count, `.renderFailed` when
    /// FreeType cannot size, load or render the glyph; and rethrows what `body` throws.
    public func withGlyphImage<R>(file: String, index: Int, variations: [(tag: UInt32, value: Double)], glyph: UInt32, pixelSize: Double, _ body: (GlyphBitmap, UnsafeBufferPointer<UInt8>) throws -> R) throws -> R {
        try Self.validate(pixelSize: pixelSize)
        let key = ImageKey(file: file, index: index, tags: variations.map(\.tag), values: variations.map(\.value),
                           glyph: glyph, pixelSize: pixelSize)
        if let known = images.withLock({ $0[key] }) {
            return try known.pixels.withUnsafeBufferPointer { try body(known.bitmap, $0) }
        }
        let coords = variations.map { VariationSetting(tag: $0.tag, value: $0.value) }
        let image: GlyphImage = try faces.withLock { cache in
            let face = try self.face(file: file, index: index, cache: &cache)
            try face.check(glyph: glyph)
            try face.apply(coords)
            let strikeScale = try face.setSize(pixelSize)
            return try face.render(glyph: glyph, scale: strikeScale)
        }
        if image.pixels.count <= Self.maxCachedImageBytes { images.withLock { $0[key] = image } }
        return try image.pixels.withUnsafeBufferPointer { try body(image.bitmap, $0) }
    }

    /// Walks the outline of glyph `glyph` of face `index` of `file` at `pixelSize` pixels per
    /// em, in pixels with y down (FreeType's y flipped) relative to the glyph origin, calling
    /// `sink` with each segment. Returns false, calling `sink` never, when the glyph has no
    /// outline (a bitmap-only face such as Noto Color Emoji).
    ///
    /// The outline is unhinted and has `variations` applied as in `withGlyphImage`.
    /// Segments are collected under the FreeType lock and handed to `sink` after it is
    /// released, in order; each contour is `move`, then `line`/`quad`/`cubic`, then `close`.
    /// A glyph with an empty outline (a space) returns true and calls `sink` never; a glyph
    /// of a bitmap-only face returns false. Fails as `withGlyphImage` does.
    public func outline(file: String, index: Int, variations: [(tag: UInt32, value: Double)], glyph: UInt32, pixelSize: Double, _ sink: (OutlineSegment) -> Void) throws -> Bool {
        try Self.validate(pixelSize: pixelSize)
        let coords = variations.map { VariationSetting(tag: $0.tag, value: $0.value) }
        let segments: [OutlineSegment]? = try faces.withLock { cache in
            let face = try self.face(file: file, index: index, cache: &cache)
            try face.check(glyph: glyph)
            guard face.isScalable else { return nil }
            try face.apply(coords)
            _ = try face.setSize(pixelSize)
            return try face.outline(glyph: glyph)
        }
        guard let segments else { return false }
        for segment in segments { sink(segment) }
        return true
    }

    static func validate(pixelSize: Double) throws {
        guard pixelSize.isFinite, pixelSize > 0, pixelSize <= maximumPixelSize else {
            throw GlyphRasterizerError(.invalidPixelSize, "pixel size \(pixelSize) is out of range: it must be finite, above 0 and at most \(Int(maximumPixelSize))")
        }
    }

    /// The open face for `file`/`index`, from the cache or opened now. Call under the lock.
    private func face(file: String, index: Int, cache: inout BoundedCache<FaceKey, RasterFace>) throws -> RasterFace {
        let key = FaceKey(file: file, index: index)
        if let face = cache[key] { return face }
        let face = try RasterFace(library: library, file: file, index: index)
        cache[key] = face
        return face
    }
}
