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
        if let problem = Self.tableDirectoryProblem(blob, index: identity.index) {
            hb_blob_destroy(blob)
            throw EngineError.damagedFont(path: identity.path, reason: problem)
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

    /// Why the file's sfnt structure cannot be trusted, or nil: the table directory (of face
    /// `index` in a collection) must fit in the file and every table must end inside it. A
    /// truncated file fails here instead of shaping with tables cut short.
    static func tableDirectoryProblem(_ blob: OpaquePointer, index: Int) -> String? {
        var length: UInt32 = 0
        guard let data = hb_blob_get_data(blob, &length) else { return "the file is empty" }
        let bytes = UnsafeRawBufferPointer(start: data, count: Int(length))
        func u32(_ at: Int) -> UInt32? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            return UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
        }
        func u16(_ at: Int) -> UInt16? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            return UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
        }
        guard let tag = u32(0) else { return "the file is \(bytes.count) bytes, too short for a font" }
        var start = 0
        if tag == 0x7474_6366 {   // "ttcf": a collection; find face `index`'s table directory
            guard let count = u32(8), index < Int(count), let offset = u32(12 + 4 * index) else {
                return "the collection header is cut short or has no face \(index)"
            }
            start = Int(offset)
        } else if tag != 0x0001_0000 && tag != 0x4F54_544F && tag != 0x7472_7565 {   // TrueType, "OTTO", "true"
            return nil   // not sfnt (a Type 1 or bitmap font): leave it to HarfBuzz
        }
        guard let tables = u16(start + 4) else { return "the table directory is cut short" }
        for t in 0..<Int(tables) {
            let record = start + 12 + 16 * t
            guard let offset = u32(record + 8), let size = u32(record + 12) else {
                return "the table directory is cut short (\(tables) tables, \(bytes.count) bytes)"
            }
            if UInt64(offset) + UInt64(size) > UInt64(bytes.count) {
                let name = String(decoding: bytes[record..<record + 4], as: UTF8.self)
                return "table '\(name)' runs past the end of the file (\(UInt64(offset) + UInt64(size)) > \(bytes.count) bytes): it is truncated"
            }
        }
        return nil
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
