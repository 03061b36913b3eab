import CFreeType
#if canImport(Glibc)
import Glibc
#endif

/// Owns one `FT_Face` (closed in `deinit`) and the state last set on it: design
/// coordinates and size, so repeated requests do not reset them. Used only under the lock.
final class RasterFace {
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
}
