import CHarfBuzz

/// One glyph as shaped, in points: its id in its face, the UTF-16 offset (paragraph-relative)
/// of the cluster it belongs to, its advance and its offset from the pen position.
public struct ShapedGlyph: Sendable, Equatable {
    public var id: UInt32
    public var cluster: Int32
    public var advance: Float
    public var xOffset: Float
    public var yOffset: Float
}

/// A maximal stretch of a paragraph with one face, script and bidi level, shaped.
/// Offsets are paragraph-relative UTF-16; glyphs are in visual order (left to right) as
/// HarfBuzz returns them.
struct ShapedRun {
    var start: Int
    var end: Int
    var face: FontFace
    var script: Script
    var level: UInt8
    /// The index in the request's styles of its shaping style: font (with its size), letter
    /// spacing, baseline offset, attachment. (An index, not a copy of the style: copying
    /// one, with its strings and arrays, and destroying it again write reference counts
    /// for every run.)
    var styleIndex: Int
    /// Its glyphs; none for an inline object, and none (with the shape cache on) when the
    /// request reads no glyphs (`RequestContext.needsGlyphs`: lines only, no geometry
    /// kept), whose layout needs only the advances.
    var glyphs: [ShapedGlyph]

    /// Ascent, descent and line gap the run adds to its line, at its baseline offset
    /// (`style`: the request's style at `styleIndex`).
    func metrics(_ style: SpanStyle) -> LineMetrics {
        let m = style.attachment.map { LineMetrics(ascent: $0.ascent, descent: $0.descent, lineGap: 0) }
            ?? face.metrics(size: style.font.size)
        return LineMetrics(ascent: max(0, m.ascent + style.baselineOffset),
                           descent: max(0, m.descent - style.baselineOffset), lineGap: m.lineGap)
    }
}

/// A HarfBuzz buffer reused for every run of one request, made when the request first
/// shapes (one whose words are all in the shape cache never does); owns it, destroys it in
/// `deinit`.
final class ShapingBuffer {
    private var made: OpaquePointer?
    /// After a `shape` asked to mark them: for each offset of the text shaped, whether it is
    /// safe to cut the text there — a cluster starts there and none of its glyphs carries
    /// HarfBuzz's `HB_GLYPH_FLAG_UNSAFE_TO_BREAK` — so that the two sides shaped apart give
    /// exactly the glyphs this shaping gave them. (Offsets 0...count; the ends are false.)
    private(set) var safeToBreak: [Bool] = []

    init() {}
    deinit { if let made { hb_buffer_destroy(made) } }

    /// The buffer, made on first use (`hb_buffer_create` never fails: on allocation failure
    /// it gives HarfBuzz's inert empty buffer).
    private var buffer: OpaquePointer {
        if let made { return made }
        let buffer = hb_buffer_create()!
        made = buffer
        return buffer
    }

    /// Shapes `run` of `paragraph` (the whole paragraph is passed as context, so joining and
    /// contextual forms see across run edges) at `size` points, adding each glyph's advance
    /// to `advances` at its cluster's offset.
    func shape(paragraph: UnsafeBufferPointer<UInt16>, start: Int, end: Int, face: FontFace, font: OpaquePointer,
               features: [hb_feature_t], script: Script, level: UInt8, language: hb_language_t?, size: Double,
               advances: inout [Double]) -> [ShapedGlyph] {
        shape(paragraph: paragraph, start: start, end: end, face: face, font: font, features: features, script: script,
              level: level, language: language, size: size, bot: start == 0, eot: end == paragraph.count,
              advances: &advances)
    }

    /// As above, with the beginning- and end-of-text flags given (for a word shaped on its
    /// own that stands at its paragraph's start or end); with `markingSafeBreaks`, filling
    /// `safeToBreak` for offsets 0...paragraph.count.
    func shape(paragraph: UnsafeBufferPointer<UInt16>, start: Int, end: Int, face: FontFace, font: OpaquePointer,
               features: [hb_feature_t], script: Script, level: UInt8, language: hb_language_t?, size: Double,
               bot: Bool, eot: Bool, markingSafeBreaks: Bool = false, advances: inout [Double]) -> [ShapedGlyph] {
        let buffer = self.buffer
        hb_buffer_clear_contents(buffer)
        hb_buffer_add_utf16(buffer, paragraph.baseAddress, Int32(paragraph.count), UInt32(start), Int32(end - start))
        hb_buffer_set_direction(buffer, level & 1 == 1 ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
        if script.isResolved { hb_buffer_set_script(buffer, script.harfBuzz) }
        if let language { hb_buffer_set_language(buffer, language) }
        var flags = HB_BUFFER_FLAG_DEFAULT.rawValue
        if bot { flags |= HB_BUFFER_FLAG_BOT.rawValue }
        if eot { flags |= HB_BUFFER_FLAG_EOT.rawValue }
        hb_buffer_set_flags(buffer, hb_buffer_flags_t(rawValue: flags))
        hb_buffer_guess_segment_properties(buffer)
        features.withUnsafeBufferPointer { hb_shape(font, buffer, $0.baseAddress, UInt32($0.count)) }

        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
              let positions = hb_buffer_get_glyph_positions(buffer, &count) else { return [] }
        let scale = size / face.unitsPerEm
        if markingSafeBreaks {
            safeToBreak.removeAll(keepingCapacity: true)
            safeToBreak.append(contentsOf: repeatElement(false, count: paragraph.count + 1))
            for g in 0..<Int(count) {
                let cluster = Int(infos[g].cluster)
                if cluster > 0, cluster < paragraph.count { safeToBreak[cluster] = true }
            }
            for g in 0..<Int(count) where infos[g].mask & HB_GLYPH_FLAG_UNSAFE_TO_BREAK.rawValue != 0 {
                let cluster = Int(infos[g].cluster)
                if cluster < safeToBreak.count { safeToBreak[cluster] = false }
            }
        }
        var glyphs: [ShapedGlyph] = []
        glyphs.reserveCapacity(Int(count))
        for g in 0..<Int(count) {
            let info = infos[g], pos = positions[g]
            let advance = Double(pos.x_advance) * scale
            let cluster = Int(info.cluster)
            if cluster >= 0, cluster < advances.count { advances[cluster] += advance }
            glyphs.append(ShapedGlyph(id: info.codepoint, cluster: Int32(cluster), advance: Float(advance),
                                      xOffset: Float(Double(pos.x_offset) * scale),
                                      yOffset: Float(Double(pos.y_offset) * scale)))
        }
        return glyphs
    }
}

/// HarfBuzz's interned language for a BCP 47 tag, or nil for "".
func harfBuzzLanguage(_ tag: String) -> hb_language_t? {
    tag.isEmpty ? nil : hb_language_from_string(tag, -1)
}

/// HarfBuzz feature settings for a style: its font's features, and with letter spacing the
/// optional ligatures off (spaced-out letters must not join).
func harfBuzzFeatures(_ style: SpanStyle) -> [hb_feature_t] {
    var features = style.font.features
    if style.letterSpacing != 0 {
        for tag in ["liga", "clig", "dlig", "hlig"] where !features.contains(where: { $0.tag == tag }) {
            features.append(FontFeature(tag: tag, value: 0))
        }
    }
    return features.map {
        hb_feature_t(tag: hb_tag_from_string($0.tag, -1), value: $0.value, start: 0, end: UInt32.max)
    }
}
