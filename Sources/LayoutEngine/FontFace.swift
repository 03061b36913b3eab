import CHarfBuzz

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
