import CHarfBuzz
import Synchronization

/// Where a face lives: a font file and the face's index inside it (collections hold several).
public struct FaceIdentity: Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var index: Int
    public var description: String { index == 0 ? path : "\(path)#\(index)" }
}

/// One font face opened with HarfBuzz: owns its `hb_face_t` and `hb_font_t`, destroyed in
/// `deinit`. The font keeps its design-unit scale (upem), so one face serves every size:
/// positions are scaled by `size / unitsPerEm` after shaping.
///
/// HarfBuzz fonts using its built-in OpenType functions are immutable after creation and
/// safe to shape with from many threads at once.
public final class FontFace: @unchecked Sendable {
    public let identity: FaceIdentity
    let face: OpaquePointer
    let font: OpaquePointer
    /// Design units per em.
    public let unitsPerEm: Double
    /// Ascender, descender (positive, below the baseline) and line gap, in design units.
    public let ascender: Double
    public let descender: Double
    public let lineGap: Double
    /// The family name the font gives itself (typographic family, else family; "" if none).
    public let familyName: String
    /// Whether the face draws in color (bitmap, layered or SVG glyphs), as emoji fonts do.
    public let hasColorGlyphs: Bool
    /// Whether the face is a variable font with a weight (`wght`) axis.
    public let hasWeightAxis: Bool
    /// Instances of this face at given axis values, made on first use.
    private let instances = Mutex<BoundedCache<[FontVariation], VariedFont>>(BoundedCache(capacity: 16))

    /// Opens face `index` of the file at `path`.
    /// Fails with `EngineError.unreadableFont` when the file is missing or holds no glyphs.
    init(identity: FaceIdentity) throws {
        guard let blob = hb_blob_create_from_file_or_fail(identity.path) else {
            throw EngineError.unreadableFont(path: identity.path, index: identity.index)
        }
        let face = hb_face_create(blob, UInt32(identity.index))!
        hb_blob_destroy(blob)
        guard hb_face_get_glyph_count(face) > 0 else {
            hb_face_destroy(face)
            throw EngineError.unreadableFont(path: identity.path, index: identity.index)
        }
        hb_face_make_immutable(face)
        let font = hb_font_create(face)!
        hb_font_make_immutable(font)
        self.identity = identity
        self.face = face
        self.font = font
        let upem = Double(max(hb_face_get_upem(face), 1))
        self.unitsPerEm = upem

        var ascender: hb_position_t = 0
        var descender: hb_position_t = 0
        var gap: hb_position_t = 0
        if hb_ot_metrics_get_position(font, HB_OT_METRICS_TAG_HORIZONTAL_ASCENDER, &ascender) == 0 {
            ascender = hb_position_t(upem * 0.8)
        }
        if hb_ot_metrics_get_position(font, HB_OT_METRICS_TAG_HORIZONTAL_DESCENDER, &descender) == 0 {
            descender = -hb_position_t(upem * 0.2)
        }
        if hb_ot_metrics_get_position(font, HB_OT_METRICS_TAG_HORIZONTAL_LINE_GAP, &gap) == 0 {
            gap = 0
        }
        self.ascender = Double(ascender)
        self.descender = Double(-descender)
        self.lineGap = Double(max(gap, 0))
        self.familyName = Self.name(face, hb_ot_name_id_t(HB_OT_NAME_ID_TYPOGRAPHIC_FAMILY)) ?? Self.name(face, hb_ot_name_id_t(HB_OT_NAME_ID_FONT_FAMILY)) ?? ""
        self.hasColorGlyphs = hb_ot_color_has_png(face) != 0 || hb_ot_color_has_layers(face) != 0 || hb_ot_color_has_svg(face) != 0
        var axis = hb_ot_var_axis_info_t()
        self.hasWeightAxis = hb_ot_var_has_data(face) != 0 && hb_ot_var_find_axis_info(face, hb_tag_from_string("wght", 4), &axis) != 0
    }

    /// The axis values this face is used at for a descriptor: its `variations`, and its
    /// weight on the `wght` axis where the face has one and `variations` sets none. Empty for
    /// a face that is not variable.
    func effectiveVariations(_ descriptor: FontDescriptor) -> [FontVariation] {
        guard hb_ot_var_has_data(face) != 0 else { return [] }
        var result = descriptor.variations
        if hasWeightAxis, !result.contains(where: { $0.tag == "wght" }) {
            result.append(FontVariation(tag: "wght", value: Double(descriptor.weight)))
        }
        return result
    }

    /// This face at `variations`, or nil for none (shape with the face's own font then).
    /// The instance is cached (bounded) and stays valid while the caller holds it.
    func instance(variations: [FontVariation]) -> VariedFont? {
        guard !variations.isEmpty else { return nil }
        return instances.withLock { cache in
            if let known = cache[variations] { return known }
            let instance = VariedFont(face: face, variations: variations)
            cache[variations] = instance
            return instance
        }
    }

    private static func name(_ face: OpaquePointer, _ id: hb_ot_name_id_t) -> String? {
        var length: UInt32 = 256
        var buffer = [CChar](repeating: 0, count: 256)
        let total = hb_ot_name_get_utf8(face, id, hb_language_from_string("en", -1), &length, &buffer)
        guard total > 0 else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The advance, in points at `size`, of the glyph this face maps `scalar` to; nil when it
    /// has none.
    func advance(of scalar: UInt32, size: Double) -> (glyph: UInt32, advance: Double)? {
        var glyph: hb_codepoint_t = 0
        guard hb_font_get_nominal_glyph(font, scalar, &glyph) != 0 else { return nil }
        return (glyph, Double(hb_font_get_glyph_h_advance(font, glyph)) * size / unitsPerEm)
    }

    deinit {
        hb_font_destroy(font)
        hb_face_destroy(face)
    }

    /// Vertical metrics at `size` points.
    func metrics(size: Double) -> LineMetrics {
        let scale = size / unitsPerEm
        return LineMetrics(ascent: ascender * scale, descent: descender * scale, lineGap: lineGap * scale)
    }
}

/// A HarfBuzz font of a face at set axis values; owns it. (A font of its own with the
/// OpenType functions, not a sub-font: a sub-font would measure through its parent, at the
/// parent's axis values.)
final class VariedFont: @unchecked Sendable {
    let font: OpaquePointer

    init(face: OpaquePointer, variations: [FontVariation]) {
        font = hb_font_create(face)!
        let values = variations.map { hb_variation_t(tag: hb_tag_from_string($0.tag, -1), value: Float($0.value)) }
        hb_font_set_variations(font, values, UInt32(values.count))
        hb_font_make_immutable(font)
    }

    deinit { hb_font_destroy(font) }
}

/// Ascent, descent and line gap in points.
struct LineMetrics: Sendable {
    var ascent: Double
    var descent: Double
    var lineGap: Double

    static let zero = LineMetrics(ascent: 0, descent: 0, lineGap: 0)

    /// The larger of each metric.
    mutating func formUnion(_ other: LineMetrics) {
        ascent = max(ascent, other.ascent)
        descent = max(descent, other.descent)
        lineGap = max(lineGap, other.lineGap)
    }
}
