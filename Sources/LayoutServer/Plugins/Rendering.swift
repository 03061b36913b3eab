import CLayoutPlugin
import LayoutEngine
import LayoutProtocol

extension LayoutService {
    /// `render`: a picture of a layout drawn by a line-renderer plugin (default "render"):
    /// `{handle | layout params, format: "png"|"svg", scale?, margin?, overlay?, highlight?,
    /// selection?, background?, renderer?, options?}` → `{format, width, height, scale, data}`
    /// (`data`: PNG as base64, or the SVG document). The picture covers the layout's size,
    /// widened to its rightmost line, with `margin` points of room on every side. Fails with
    /// -32602 for an unknown renderer or a picture over 16384 pixels a side or 16 Mpixels,
    /// -32000 when the renderer fails. `retained`: the layout drawn (`handle`'s, or the layout
    /// params' laid out at scale 1: `scale` is the picture's).
    func render(_ r: RenderParams, _ retained: RetainedLayout, session: Session) throws(RPCError) -> RenderResult {
        let renderer = try drawingRenderer(r.renderer)
        let layout = try glyphLayout(retained, session: session)
        let picture = try Picture(layout: layout, params: r)
        let marks = try renderMarks(r, layout: layout, retained: retained, session: session)
        let arena = CArena()
        let lines = PluginLines(layout: layout, built: retained.built, regions: retained.regions, options: r.options,
                                arena: arena, origin: r.margin)
        let painter = LinePainter(renderer: renderer, layout: layout, lines: lines, arena: arena, marks: marks, overlay: r.overlay)
        let data = r.format == "png" ? try painter.png(picture, background: r.background)
                                     : try painter.svg(picture, background: r.background)
        return RenderResult(format: r.format,
                            width: r.format == "png" ? Double(picture.pixelWidth) : wire(picture.width * r.scale),
                            height: r.format == "png" ? Double(picture.pixelHeight) : wire(picture.height * r.scale),
                            scale: r.scale, data: data, fontFingerprint: retained.fontFingerprint)
    }

    /// The loaded renderer named `name` that draws; -32602 listing those that do otherwise.
    private func drawingRenderer(_ name: String) throws(RPCError) -> LoadedPlugin {
        let plugins = self.plugins
        guard let renderer = plugins.renderer(named: name), renderer.table.pointee.draw != nil else {
            let names = plugins.plugins.filter { $0.kind == .lineRenderer && $0.table.pointee.draw != nil }.map { "\"\($0.name)\"" }
            throw .invalidParams(field: "renderer", "names no loaded renderer that draws: \"\(name)\"; loaded: \(names.isEmpty ? "none" : names.joined(separator: ", "))")
        }
        return renderer
    }

    /// The retained layout's request again with glyphs (a retained layout keeps only what
    /// queries need).
    private func glyphLayout(_ retained: RetainedLayout, session: Session) throws(RPCError) -> TextLayout {
        var request = retained.built.request
        request.detail = .glyphs
        request.keepsGeometry = true
        request.keepsReusable = false
        request.previous = nil
        request.shouldStop = stopCheck(session)
        do { return try engine.layout(request) } catch { throw Self.rpcError(error) }
    }

    /// The highlight and selection rects of `render`'s params, in the picture's space (moved
    /// by the margin).
    private func renderMarks(_ r: RenderParams, layout: TextLayout, retained: RetainedLayout,
                             session: Session) throws(RPCError) -> LinePainter.Marks {
        let mapping = retained.mapping(session.offsetEncoding)
        func rects(_ start: Int, _ end: Int, field: String) throws(RPCError) -> [Rect] {
            guard end <= mapping.length else {
                throw .invalidParams(field: field, "is past the end of the text (\(mapping.length) \(session.offsetEncoding.unitName))")
            }
            return layout.rects(mapping.utf16Offset(start), mapping.utf16Offset(end, roundingUp: true))
                .map { Rect(x: $0.x + r.margin, y: $0.y + r.margin, width: $0.width, height: $0.height) }
        }
        var marks = LinePainter.Marks()
        for (i, h) in r.highlights.enumerated() {
            marks.highlights.append((UInt32(h.state), try rects(h.start, h.end, field: r.highlights.count == 1 ? "highlight" : "highlight[\(i)]")))
        }
        if let s = r.selection { marks.selection = try rects(s.start, s.end, field: "selection") }
        return marks
    }

    /// The decorations a line renderer gives each line of a retained layout (`decorations`
    /// of `layout`), as JSON per line; nil when none were asked or the renderer is gone.
    func lineDecorations(_ retained: RetainedLayout, lines selected: Range<Int>) -> [[JSONValue]]? {
        guard let asked = retained.params.decorations, let renderer = plugins.renderer(named: asked.renderer) else { return nil }
        let arena = CArena()
        let lines = PluginLines(layout: retained.layout, built: retained.built, regions: retained.regions,
                                options: asked.options, arena: arena)
        return selected.map { l in
            switch renderer.decorate(line: lines.lines + l, textBytes: lines.text.bytes) {
            case .success(let decorations): decorations.map(\.json)
            case .failure: []
            }
        }
    }

    /// Fails with -32602 when `decorations` names a renderer that is not loaded.
    func checkDecorations(_ p: LayoutParams) throws(RPCError) {
        guard let asked = p.decorations else { return }
        guard let renderer = plugins.renderer(named: asked.renderer), renderer.table.pointee.decorate != nil else {
            let names = plugins.plugins.filter { $0.kind == .lineRenderer && $0.table.pointee.decorate != nil }.map { "\"\($0.name)\"" }
            throw .invalidParams(field: "decorations", "names no loaded renderer that decorates: \"\(asked.renderer)\"; loaded: \(names.isEmpty ? "none" : names.joined(separator: ", "))")
        }
    }
}
