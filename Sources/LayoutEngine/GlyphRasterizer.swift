import CFreeType
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// The glyph rasterizer for the `render` path: FreeType draws glyphs (coverage masks, color
// bitmaps) and walks outlines. Shaping and layout never use it; they work with HarfBuzz's
// own OpenType functions (see FontFace).
//
// The CFreeType shim includes FT_FREETYPE_H, FT_OUTLINE_H (FT_Outline_Decompose) and
// FT_MULTIPLE_MASTERS_H (FT_Get_MM_Var, FT_Done_MM_Var, FT_{Get,Set}_Var_Design_Coordinates
// and the FT_MM_Var/FT_Var_Axis structs), so all of FreeType is called directly.

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

// MARK: - FreeType owners

private struct FaceKey: Hashable {
    var file: String
    var index: Int
}

/// Owns the `FT_Library`; closed after the last face that holds it.
private final class FreeTypeLibrary {
    let handle: FT_Library
    init(_ handle: FT_Library) { self.handle = handle }
    deinit { FT_Done_FreeType(handle) }
}

private struct VariationSetting: Equatable {
    var tag: UInt32
    var value: Double
}

/// One variation axis, in design units.
private struct VariationAxis {
    var tag: UInt32
    var minimum, maximum: FT_Fixed
}

/// A glyph image copied out of FreeType.
private struct GlyphImage: Sendable {
    var bitmap: GlyphRasterizer.GlyphBitmap
    var pixels: [UInt8]
}

/// Owns one `FT_Face` (closed in `deinit`) and the state last set on it: design
/// coordinates and size, so repeated requests do not reset them. Used only under the lock.
private final class RasterFace {
    let library: FreeTypeLibrary
    let face: FT_Face
    let file: String
    let index: Int
    let glyphCount: Int
    let isScalable: Bool
    let axes: [VariationAxis]
    /// The face's own design coordinates when opened (a named instance's, or the defaults).
    let baseCoordinates: [FT_Fixed]
    private var appliedCoordinates: [FT_Fixed]
    private var appliedSize: Double?
    private var appliedStrikeScale: Double = 1

    init(library: FreeTypeLibrary, file: String, index: Int) throws {
        guard index >= 0 else {
            throw GlyphRasterizerError(.invalidGlyph, "face index \(index) of \(file) is negative")
        }
        guard access(file, F_OK) == 0 else {
            throw GlyphRasterizerError(.fontNotFound, "font file \(file) does not exist")
        }
        var handle: FT_Face?
        let error = FT_New_Face(library.handle, file, FT_Long(index), &handle)
        guard error == 0, let handle else {
            throw GlyphRasterizerError(.unreadableFont, "cannot open face \(index) of font file \(file)", freeTypeError: error)
        }
        self.library = library
        self.face = handle
        self.file = file
        self.index = index
        let flags = handle.pointee.face_flags
        glyphCount = Int(handle.pointee.num_glyphs)
        isScalable = flags & FT_Long(FT_FACE_FLAG_SCALABLE) != 0

        var axes: [VariationAxis] = []
        var base: [FT_Fixed] = []
        if flags & FT_Long(FT_FACE_FLAG_MULTIPLE_MASTERS) != 0 {
            var master: UnsafeMutablePointer<FT_MM_Var>?
            if FT_Get_MM_Var(handle, &master) == 0, let master {
                axes = Self.readAxes(master.pointee)
                _ = FT_Done_MM_Var(library.handle, master)
            }
            if !axes.isEmpty {
                base = [FT_Fixed](repeating: 0, count: axes.count)
                if FT_Get_Var_Design_Coordinates(handle, FT_UInt(axes.count), &base) != 0 {
                    base = axes.map { min(max(0, $0.minimum), $0.maximum) }
                }
            }
        }
        self.axes = axes
        self.baseCoordinates = base
        self.appliedCoordinates = base
    }

    deinit { FT_Done_Face(face) }

    /// The axes of an `FT_MM_Var` (none when it claims more than 64).
    private static func readAxes(_ master: FT_MM_Var) -> [VariationAxis] {
        let count = Int(master.num_axis)
        guard count > 0, count <= 64, let array = master.axis else { return [] }
        return (0..<count).map { i in
            let axis = array[i]
            return VariationAxis(tag: UInt32(truncatingIfNeeded: axis.tag), minimum: axis.minimum, maximum: axis.maximum)
        }
    }

    func check(glyph: UInt32) throws {
        guard Int(glyph) < glyphCount else {
            throw GlyphRasterizerError(.invalidGlyph, "glyph \(glyph) is not in face \(index) of \(file), which has \(glyphCount) glyphs")
        }
    }

    /// Sets the design coordinates: the face's own, with the named axes overridden.
    func apply(_ settings: [VariationSetting]) throws {
        guard !axes.isEmpty else { return }
        var coordinates = baseCoordinates
        for setting in settings where setting.value.isFinite {
            for (i, axis) in axes.enumerated() where axis.tag == setting.tag {
                let value = FT_Fixed((setting.value * 65536).rounded())
                coordinates[i] = min(max(value, axis.minimum), axis.maximum)
            }
        }
        guard coordinates != appliedCoordinates else { return }
        let error = FT_Set_Var_Design_Coordinates(face, FT_UInt(coordinates.count), &coordinates)
        // Variation changes scale-dependent state; size the face again.
        appliedSize = nil
        guard error == 0 else {
            appliedCoordinates = []
            throw GlyphRasterizerError(.renderFailed, "cannot set the variation axes of face \(index) of \(file)", freeTypeError: error)
        }
        appliedCoordinates = coordinates
    }

    /// Sizes the face at `pixelSize` pixels per em. Returns the factor a bitmap drawn from
    /// the selected fixed strike must be scaled by (1 for scalable faces).
    func setSize(_ pixelSize: Double) throws -> Double {
        if appliedSize == pixelSize { return appliedStrikeScale }
        appliedSize = nil
        var error: FT_Error = 0
        if isScalable {
            let size = FT_F26Dot6(max(1, (pixelSize * 64).rounded()))
            error = FT_Set_Char_Size(face, 0, size, 72, 72)
            if error == 0 {
                appliedSize = pixelSize
                appliedStrikeScale = 1
                return 1
            }
        }
        let count = Int(face.pointee.num_fixed_sizes)
        guard count > 0, let sizes = face.pointee.available_sizes else {
            throw GlyphRasterizerError(.renderFailed, "cannot size face \(index) of \(file) at \(pixelSize) px", freeTypeError: error == 0 ? nil : error)
        }
        func ppem(_ i: Int) -> Double {
            let size = sizes[i]
            return size.y_ppem > 0 ? Double(size.y_ppem) / 64 : Double(size.height)
        }
        var best = 0
        for i in 1..<max(count, 1) {
            let (candidate, current) = (ppem(i), ppem(best))
            if current >= pixelSize {
                if candidate >= pixelSize && candidate < current { best = i }
            } else if candidate > current {
                best = i
            }
        }
        error = FT_Select_Size(face, FT_Int(best))
        guard error == 0 else {
            throw GlyphRasterizerError(.renderFailed, "cannot select the \(ppem(best)) px strike of face \(index) of \(file)", freeTypeError: error)
        }
        let strike = ppem(best)
        appliedStrikeScale = strike > 0 ? pixelSize / strike : 1
        appliedSize = pixelSize
        return appliedStrikeScale
    }

    /// Loads and renders `glyph` at the current size, copied into a fresh buffer (scaled by
    /// `scale` when it came from a fixed strike).
    func render(glyph: UInt32, scale: Double) throws -> GlyphImage {
        var error = FT_Load_Glyph(face, glyph, Int32(FT_LOAD_COLOR | FT_LOAD_NO_HINTING))
        guard error == 0, let slot = face.pointee.glyph else {
            throw GlyphRasterizerError(.renderFailed, "cannot load glyph \(glyph) of face \(index) of \(file)", freeTypeError: error)
        }
        if slot.pointee.format != FT_GLYPH_FORMAT_BITMAP {
            error = FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL)
            guard error == 0 else {
                throw GlyphRasterizerError(.renderFailed, "cannot render glyph \(glyph) of face \(index) of \(file)", freeTypeError: error)
            }
        }
        var image = try Self.copy(slot.pointee.bitmap, glyph: glyph, in: self)
        image.bitmap.left = Int(slot.pointee.bitmap_left)
        image.bitmap.top = Int(slot.pointee.bitmap_top)
        if scale != 1, image.bitmap.width > 0, image.bitmap.height > 0 {
            image = Self.resample(image, scale: scale)
        }
        return image
    }

    /// Copies an `FT_Bitmap` top row first into 8-bit coverage or BGRA with tight rows.
    private static func copy(_ bitmap: FT_Bitmap, glyph: UInt32, in face: RasterFace) throws -> GlyphImage {
        let width = Int(bitmap.width)
        let height = Int(bitmap.rows)
        let mode = bitmap.pixel_mode
        let isColor = mode == UInt8(FT_PIXEL_MODE_BGRA.rawValue)
        let channels = isColor ? 4 : 1
        var result = GlyphImage(
            bitmap: GlyphRasterizer.GlyphBitmap(width: width, height: height, left: 0, top: 0, stride: width * channels, isColor: isColor),
            pixels: [])
        guard width > 0, height > 0, let buffer = bitmap.buffer else {
            result.bitmap.width = 0
            result.bitmap.height = 0
            result.bitmap.stride = 0
            return result
        }
        let pitch = Int(bitmap.pitch)
        func row(_ y: Int) -> UnsafeMutablePointer<UInt8> {
            pitch >= 0 ? buffer + y * pitch : buffer + (height - 1 - y) * -pitch
        }
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let source = row(y)
                let target = out.baseAddress! + y * width * channels
                switch mode {
                case UInt8(FT_PIXEL_MODE_BGRA.rawValue):
                    target.update(from: source, count: width * 4)
                case UInt8(FT_PIXEL_MODE_GRAY.rawValue):
                    let levels = Int(bitmap.num_grays)
                    if levels == 256 || levels <= 1 {
                        target.update(from: source, count: width)
                    } else {
                        for x in 0..<width { target[x] = UInt8(min(255, Int(source[x]) * 255 / (levels - 1))) }
                    }
                case UInt8(FT_PIXEL_MODE_MONO.rawValue):
                    for x in 0..<width { target[x] = source[x >> 3] & (0x80 >> UInt8(x & 7)) != 0 ? 255 : 0 }
                case UInt8(FT_PIXEL_MODE_GRAY2.rawValue):
                    for x in 0..<width {
                        let v = (source[x >> 2] >> UInt8(6 - 2 * (x & 3))) & 3
                        target[x] = v * 85
                    }
                case UInt8(FT_PIXEL_MODE_GRAY4.rawValue):
                    for x in 0..<width {
                        let v = (source[x >> 1] >> UInt8(4 - 4 * (x & 1))) & 15
                        target[x] = v * 17
                    }
                default:
                    break
                }
            }
        }
        let known: [FT_Pixel_Mode] = [FT_PIXEL_MODE_BGRA, FT_PIXEL_MODE_GRAY, FT_PIXEL_MODE_MONO, FT_PIXEL_MODE_GRAY2, FT_PIXEL_MODE_GRAY4]
        guard known.contains(where: { UInt8($0.rawValue) == mode }) else {
            throw GlyphRasterizerError(.renderFailed, "glyph \(glyph) of face \(face.index) of \(face.file) has an unsupported pixel mode \(mode)")
        }
        result.pixels = pixels
        return result
    }

    /// Scales an image by `scale`: a box filter (area average) when shrinking, bilinear
    /// when enlarging; separable, in floating point. Premultiplied BGRA resamples directly.
    private static func resample(_ image: GlyphImage, scale: Double) -> GlyphImage {
        let channels = image.bitmap.isColor ? 4 : 1
        let (w, h) = (image.bitmap.width, image.bitmap.height)
        let dw = max(1, Int((Double(w) * scale).rounded()))
        let dh = max(1, Int((Double(h) * scale).rounded()))
        let xTaps = taps(source: w, target: dw)
        let yTaps = taps(source: h, target: dh)

        // Horizontal pass: h rows of dw pixels.
        var middle = [Float](repeating: 0, count: h * dw * channels)
        image.pixels.withUnsafeBufferPointer { src in
            middle.withUnsafeMutableBufferPointer { mid in
                for y in 0..<h {
                    let srow = y * w * channels
                    let mrow = y * dw * channels
                    for x in 0..<dw {
                        for (sx, weight) in xTaps[x] {
                            for c in 0..<channels {
                                mid[mrow + x * channels + c] += weight * Float(src[srow + sx * channels + c])
                            }
                        }
                    }
                }
            }
        }
        // Vertical pass.
        var pixels = [UInt8](repeating: 0, count: dh * dw * channels)
        middle.withUnsafeBufferPointer { mid in
            pixels.withUnsafeMutableBufferPointer { out in
                let rowLength = dw * channels
                for y in 0..<dh {
                    for i in 0..<rowLength {
                        var sum: Float = 0
                        for (sy, weight) in yTaps[y] { sum += weight * mid[sy * rowLength + i] }
                        out[y * rowLength + i] = UInt8(max(0, min(255, sum.rounded())))
                    }
                }
            }
        }
        let bitmap = GlyphRasterizer.GlyphBitmap(
            width: dw, height: dh,
            left: Int((Double(image.bitmap.left) * scale).rounded()),
            top: Int((Double(image.bitmap.top) * scale).rounded()),
            stride: dw * channels, isColor: image.bitmap.isColor)
        return GlyphImage(bitmap: bitmap, pixels: pixels)
    }

    /// For each target index, the source indices and weights (summing to 1) it draws from.
    private static func taps(source: Int, target: Int) -> [[(Int, Float)]] {
        let ratio = Double(source) / Double(target)
        if target < source {
            // Box: target pixel t covers source [t·ratio, (t+1)·ratio).
            return (0..<target).map { t in
                let start = Double(t) * ratio, end = Double(t + 1) * ratio
                var list: [(Int, Float)] = []
                var s = Int(start)
                while Double(s) < end && s < source {
                    let overlap = min(end, Double(s + 1)) - max(start, Double(s))
                    if overlap > 0 { list.append((s, Float(overlap / ratio))) }
                    s += 1
                }
                return list
            }
        }
        // Bilinear, pixel centers aligned.
        return (0..<target).map { t in
            let position = min(max((Double(t) + 0.5) * ratio - 0.5, 0), Double(source - 1))
            let s0 = Int(position)
            let s1 = min(s0 + 1, source - 1)
            let f = Float(position - Double(s0))
            return s0 == s1 || f == 0 ? [(s0, Float(1))] : [(s0, 1 - f), (s1, f)]
        }
    }

    /// The outline of `glyph` at the current size (unhinted), y down, in pixels.
    /// Nil when the glyph loads as something other than an outline.
    func outline(glyph: UInt32) throws -> [GlyphRasterizer.OutlineSegment]? {
        let error = FT_Load_Glyph(face, glyph, Int32(FT_LOAD_NO_BITMAP | FT_LOAD_NO_HINTING))
        guard error == 0, let slot = face.pointee.glyph else {
            throw GlyphRasterizerError(.renderFailed, "cannot load the outline of glyph \(glyph) of face \(index) of \(file)", freeTypeError: error)
        }
        guard slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE else { return nil }
        let collector = OutlineCollector()
        var callbacks = FT_Outline_Funcs(
            move_to: { to, user in
                guard let to, let user else { return 1 }
                let c = Unmanaged<OutlineCollector>.fromOpaque(user).takeUnretainedValue()
                if c.open { c.segments.append(.close) }
                c.open = true
                c.segments.append(.move(Double(to.pointee.x) / 64, Double(-to.pointee.y) / 64))
                return 0
            },
            line_to: { to, user in
                guard let to, let user else { return 1 }
                let c = Unmanaged<OutlineCollector>.fromOpaque(user).takeUnretainedValue()
                c.segments.append(.line(Double(to.pointee.x) / 64, Double(-to.pointee.y) / 64))
                return 0
            },
            conic_to: { control, to, user in
                guard let control, let to, let user else { return 1 }
                let c = Unmanaged<OutlineCollector>.fromOpaque(user).takeUnretainedValue()
                c.segments.append(.quad(Double(control.pointee.x) / 64, Double(-control.pointee.y) / 64,
                                        Double(to.pointee.x) / 64, Double(-to.pointee.y) / 64))
                return 0
            },
            cubic_to: { control1, control2, to, user in
                guard let control1, let control2, let to, let user else { return 1 }
                let c = Unmanaged<OutlineCollector>.fromOpaque(user).takeUnretainedValue()
                c.segments.append(.cubic(Double(control1.pointee.x) / 64, Double(-control1.pointee.y) / 64,
                                         Double(control2.pointee.x) / 64, Double(-control2.pointee.y) / 64,
                                         Double(to.pointee.x) / 64, Double(-to.pointee.y) / 64))
                return 0
            },
            shift: 0, delta: 0)
        let result = withExtendedLifetime(collector) {
            withUnsafeMutablePointer(to: &slot.pointee.outline) { outline in
                FT_Outline_Decompose(outline, &callbacks, Unmanaged.passUnretained(collector).toOpaque())
            }
        }
        guard result == 0 else {
            throw GlyphRasterizerError(.renderFailed, "cannot walk the outline of glyph \(glyph) of face \(index) of \(file)", freeTypeError: result)
        }
        if collector.open { collector.segments.append(.close) }
        return collector.segments
    }
}

/// Collects segments from FT_Outline_Decompose's callbacks (reached through `user`).
private final class OutlineCollector {
    var segments: [GlyphRasterizer.OutlineSegment] = []
    var open = false
}
