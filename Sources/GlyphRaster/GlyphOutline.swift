import CFreeType

extension RasterFace {
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
final class OutlineCollector {
    var segments: [GlyphRasterizer.OutlineSegment] = []
    var open = false
}
