import CLayoutPlugin
import LayoutEngine
import LayoutProtocol

extension LayoutService {
    /// Most pixels a PNG may have (about 64 MiB of RGBA).
    static let maxRenderPixels = 16 << 20
    static let maxRenderSide = 16_384

    /// `render`: a picture of a layout drawn by a line-renderer plugin (default "render"):
    /// `{handle | layout params, format: "png"|"svg", scale?, overlay?, highlight?,
    /// selection?, background?, renderer?, options?}` → `{format, width, height, scale, data}`
    /// (`data`: PNG as base64, or the SVG document). The picture covers the layout's size,
    /// widened to its rightmost line. Fails with -32602 for an unknown renderer or a picture
    /// over 16384 pixels a side or 16 Mpixels, -32000 when the renderer fails.
    func render(_ params: JSONValue?, session: Session) throws(RPCError) -> JSONValue {
        let r = try RenderParams(json: params)
        let retained: RetainedLayout
        if let handle = r.handle {
            guard let found = store.get(handle) else { throw unknownHandle(handle) }
            retained = found
        } else {
            guard case .object(let members) = params ?? .null, params?["text"] != nil else {
                throw .invalidParams(field: "handle", "is required (or the layout params, with `text`)")
            }
            // `scale` here is the picture's; the text is laid out at scale 1.
            let layoutParams = try LayoutParams(json: .object(members.filter { $0.0 != "scale" }))
            retained = try perform(layoutParams, session: session, geometry: true)
        }
        let plugins = self.plugins
        guard let renderer = plugins.renderer(named: r.renderer), renderer.table.pointee.draw != nil else {
            let names = plugins.plugins.filter { $0.kind == .lineRenderer && $0.table.pointee.draw != nil }.map { "\"\($0.name)\"" }
            throw .invalidParams(field: "renderer", "names no loaded renderer that draws: \"\(r.renderer)\"; loaded: \(names.isEmpty ? "none" : names.joined(separator: ", "))")
        }

        // The same request again with glyphs (a retained layout keeps only what queries need).
        var request = retained.built.request
        request.detail = .glyphs
        request.keepsGeometry = true
        request.keepsReusable = false
        request.previous = nil
        request.shouldStop = stopCheck(session)
        let layout: TextLayout
        do { layout = try engine.layout(request) } catch { throw Self.rpcError(error) }

        let widthPoints = max(layout.width, layout.lines.map { $0.x + $0.width }.max() ?? 0, 1)
        let heightPoints = max(layout.height, 1)
        let width = Int((widthPoints * r.scale).rounded(.up)), height = Int((heightPoints * r.scale).rounded(.up))
        guard width <= Self.maxRenderSide, height <= Self.maxRenderSide, width * height <= Self.maxRenderPixels else {
            throw .invalidParams(field: "scale", "makes a \(width) × \(height) pixel picture; the most is \(Self.maxRenderSide) a side and \(Self.maxRenderPixels) pixels: lower the scale or render fewer lines")
        }

        let mapping = retained.mapping(session.offsetEncoding)
        func utf16Range(_ start: Int, _ end: Int, field: String) throws(RPCError) -> Range<Int> {
            guard end <= mapping.length else {
                throw .invalidParams(field: field, "is past the end of the text (\(mapping.length) \(session.offsetEncoding.unitName))")
            }
            return mapping.utf16Offset(start)..<mapping.utf16Offset(end, roundingUp: true)
        }
        var highlights: [(state: UInt32, rects: [Rect])] = []
        for (i, h) in r.highlights.enumerated() {
            let range = try utf16Range(h.start, h.end, field: r.highlights.count == 1 ? "highlight" : "highlight[\(i)]")
            highlights.append((UInt32(h.state), layout.rects(range.lowerBound, range.upperBound)))
        }
        var selection: [Rect] = []
        if let s = r.selection {
            let range = try utf16Range(s.start, s.end, field: "selection")
            selection = layout.rects(range.lowerBound, range.upperBound)
        }

        let arena = CArena()
        let lines = PluginLines(layout: layout, built: retained.built, regions: retained.regions, options: r.options, arena: arena)
        func onLine(_ rect: Rect, _ line: LineBox) -> Bool {
            let mid = rect.y + rect.height / 2
            return mid >= line.y && mid < line.y + line.height
        }
        var failure: PluginCallFailure?
        let data: String
        if r.format == "png" {
            let stride = width * 4
            var pixels = [UInt8](repeating: 0, count: stride * height)
            if let background = ColorValue.parse(r.background) {
                let rgba: [UInt8] = [UInt8(background >> 24), UInt8(background >> 16 & 0xFF), UInt8(background >> 8 & 0xFF), UInt8(background & 0xFF)]
                for i in 0..<(width * height) { pixels[i * 4] = rgba[0]; pixels[i * 4 + 1] = rgba[1]; pixels[i * 4 + 2] = rgba[2]; pixels[i * 4 + 3] = rgba[3] }
            }
            pixels.withUnsafeMutableBufferPointer { buffer in
                for (l, line) in layout.lines.enumerated() where failure == nil {
                    var canvas = Self.canvas(arena: arena, line: line, highlights: highlights, selection: selection,
                                             overlay: r.overlay, onLine: onLine)
                    canvas.format = UInt32(LAYOUTD_CANVAS_RGBA.rawValue)
                    canvas.width = UInt32(width)
                    canvas.height = UInt32(height)
                    canvas.stride = UInt32(stride)
                    canvas.scale = r.scale
                    canvas.pixels = buffer.baseAddress
                    if case .failure(let f) = renderer.draw(line: lines.lines + l, canvas: &canvas) { failure = f }
                }
            }
            if let failure { throw RPCError(.serverError, "renderer \"\(renderer.name)\" failed: \(failure.message)") }
            let png: [UInt8]
            do {
                png = try pixels.withUnsafeBufferPointer { try PNGEncoder.encode(rgba: $0, width: width, height: height, stride: stride) }
            } catch {
                throw RPCError(.internalError, "internal error: PNG encoding failed: \(error)")
            }
            data = PNGEncoder.base64(png)
        } else {
            final class Sink { var bytes: [UInt8] = [] }
            let sink = Sink()
            let w = wire(widthPoints), h = wire(heightPoints)
            sink.bytes += Array("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(wire(widthPoints * r.scale))\" height=\"\(wire(heightPoints * r.scale))\" viewBox=\"0 0 \(w) \(h)\">\n".utf8)
            if let background = r.background {
                sink.bytes += Array("<rect width=\"\(w)\" height=\"\(h)\" fill=\"\(background.prefix(7))\"\(background.count == 9 ? " fill-opacity=\"\(wire(Double(UInt8(background.suffix(2), radix: 16) ?? 255) / 255))\"" : "")/>\n".utf8)
            }
            withExtendedLifetime(sink) {
                for (l, line) in layout.lines.enumerated() where failure == nil {
                    var canvas = Self.canvas(arena: arena, line: line, highlights: highlights, selection: selection,
                                             overlay: r.overlay, onLine: onLine)
                    canvas.format = UInt32(LAYOUTD_CANVAS_SVG.rawValue)
                    canvas.width = UInt32(widthPoints.rounded(.up))
                    canvas.height = UInt32(heightPoints.rounded(.up))
                    canvas.scale = 1
                    canvas.append = { context, bytes, length in
                        guard let context, let bytes, length > 0 else { return }
                        let s = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
                        guard s.bytes.count + length <= 256 << 20 else { return }
                        s.bytes += UnsafeRawBufferPointer(start: bytes, count: length)
                    }
                    canvas.append_context = Unmanaged.passUnretained(sink).toOpaque()
                    if case .failure(let f) = renderer.draw(line: lines.lines + l, canvas: &canvas) { failure = f }
                }
            }
            if let failure { throw RPCError(.serverError, "renderer \"\(renderer.name)\" failed: \(failure.message)") }
            sink.bytes += Array("</svg>\n".utf8)
            data = String(decoding: sink.bytes, as: UTF8.self)
        }
        return ["format": .string(r.format),
                "width": .number(r.format == "png" ? Double(width) : wire(widthPoints * r.scale)),
                "height": .number(r.format == "png" ? Double(height) : wire(heightPoints * r.scale)),
                "scale": .number(r.scale), "data": .string(data),
                "fontFingerprint": .string(retained.fontFingerprint)]
    }

    /// A canvas for one line with the highlights and selection rects that fall on it.
    private static func canvas(arena: CArena, line: LineBox, highlights: [(state: UInt32, rects: [Rect])], selection: [Rect],
                               overlay: Bool, onLine: (Rect, LineBox) -> Bool) -> layoutd_canvas {
        var canvas = layoutd_canvas()
        canvas.struct_size = UInt32(MemoryLayout<layoutd_canvas>.size)
        canvas.overlay = overlay ? 1 : 0
        let cHighlights = highlights.compactMap { h -> layoutd_highlight? in
            let rects = h.rects.filter { onLine($0, line) }.map { layoutd_rect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
            guard !rects.isEmpty else { return nil }
            return layoutd_highlight(state: h.state, rect_count: UInt32(rects.count), rects: arena.array(rects))
        }
        canvas.highlights = arena.array(cHighlights)
        canvas.highlight_count = UInt32(cHighlights.count)
        let cSelection = selection.filter { onLine($0, line) }.map { layoutd_rect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
        canvas.selection = arena.array(cSelection)
        canvas.selection_count = UInt32(cSelection.count)
        return canvas
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
