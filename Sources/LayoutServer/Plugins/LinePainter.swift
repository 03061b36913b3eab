import CLayoutPlugin
import LayoutEngine
import LayoutProtocol

/// The size of a `render` picture: the layout's size widened to its rightmost line, plus the
/// margin on every side, in points and (for PNG) in pixels at the picture's scale.
struct Picture {
    /// Most pixels a PNG may have (about 64 MiB of RGBA), and most a side.
    static let maxPixels = 16 << 20
    static let maxSide = 16_384

    let width: Double
    let height: Double
    let scale: Double
    let pixelWidth: Int
    let pixelHeight: Int

    /// Fails with -32602 naming `scale` (or `margin`, when the margin makes it too large) for
    /// a picture over `maxSide` pixels a side or `maxPixels` in all.
    init(layout: TextLayout, params r: RenderParams) throws(RPCError) {
        let text = (width: max(layout.width, layout.lines.map { $0.x + $0.width }.max() ?? 0, 1), height: max(layout.height, 1))
        width = text.width + 2 * r.margin
        height = text.height + 2 * r.margin
        scale = r.scale
        pixelWidth = Int((width * scale).rounded(.up))
        pixelHeight = Int((height * scale).rounded(.up))
        guard pixelWidth <= Self.maxSide, pixelHeight <= Self.maxSide, pixelWidth * pixelHeight <= Self.maxPixels else {
            let textFits = (text.width * scale).rounded(.up) <= Double(Self.maxSide) && (text.height * scale).rounded(.up) <= Double(Self.maxSide)
                && (text.width * scale).rounded(.up) * (text.height * scale).rounded(.up) <= Double(Self.maxPixels)
            throw .invalidParams(field: textFits && r.margin > 0 ? "margin" : "scale",
                                 "makes a \(pixelWidth) × \(pixelHeight) pixel picture; the most is \(Self.maxSide) a side and \(Self.maxPixels) pixels: lower the scale or margin, or render fewer lines")
        }
    }
}

/// Draws the lines of a layout with a renderer plugin onto a PNG or into an SVG document:
/// one `draw` call per line, each with the highlight and selection rects on that line.
struct LinePainter {
    /// Highlights (by state) and selection, as rects in the picture's space.
    struct Marks {
        var highlights: [(state: UInt32, rects: [Rect])] = []
        var selection: [Rect] = []
    }

    let renderer: LoadedPlugin
    let layout: TextLayout
    let lines: PluginLines
    let arena: CArena
    let marks: Marks
    let overlay: Bool

    /// The SVG namespaces: SVG's, and XLink's for `xlink:href`, which SVG 1.1 viewers read
    /// instead of SVG 2's `href` (SVG 1.1, "The 'image' element"; renderers write both).
    static let svgNamespaces = "xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\""

    /// The PNG, base64: `background` (none: transparent) and each line drawn over it.
    func png(_ picture: Picture, background: String?) throws(RPCError) -> String {
        let width = picture.pixelWidth, height = picture.pixelHeight, stride = width * 4
        var pixels = [UInt8](repeating: 0, count: stride * height)
        if let color = ColorValue.parse(background) {
            let rgba: [UInt8] = [UInt8(color >> 24), UInt8(color >> 16 & 0xFF), UInt8(color >> 8 & 0xFF), UInt8(color & 0xFF)]
            for i in 0..<(width * height) { pixels[i * 4] = rgba[0]; pixels[i * 4 + 1] = rgba[1]; pixels[i * 4 + 2] = rgba[2]; pixels[i * 4 + 3] = rgba[3] }
        }
        let failure = pixels.withUnsafeMutableBufferPointer { buffer in
            drawLines { canvas in
                canvas.format = UInt32(LAYOUTD_CANVAS_RGBA.rawValue)
                canvas.width = UInt32(width)
                canvas.height = UInt32(height)
                canvas.stride = UInt32(stride)
                canvas.scale = picture.scale
                canvas.pixels = buffer.baseAddress
            }
        }
        if let failure { throw failed(failure) }
        do {
            let png = try pixels.withUnsafeBufferPointer { try PNGEncoder.encode(rgba: $0, width: width, height: height, stride: stride) }
            return PNGEncoder.base64(png)
        } catch {
            throw RPCError(.internalError, "internal error: PNG encoding failed: \(error)")
        }
    }

    /// The SVG document: its size in points times the scale, its `viewBox` in points.
    func svg(_ picture: Picture, background: String?) throws(RPCError) -> String {
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        let w = wire(picture.width), h = wire(picture.height)
        sink.bytes += Array("<svg \(Self.svgNamespaces) width=\"\(wire(picture.width * picture.scale))\" height=\"\(wire(picture.height * picture.scale))\" viewBox=\"0 0 \(w) \(h)\">\n".utf8)
        if let background {
            let opacity = background.count == 9 ? " fill-opacity=\"\(wire(Double(UInt8(background.suffix(2), radix: 16) ?? 255) / 255))\"" : ""
            sink.bytes += Array("<rect width=\"\(w)\" height=\"\(h)\" fill=\"\(background.prefix(7))\"\(opacity)/>\n".utf8)
        }
        let failure = withExtendedLifetime(sink) {
            drawLines { canvas in
                canvas.format = UInt32(LAYOUTD_CANVAS_SVG.rawValue)
                canvas.width = UInt32(picture.width.rounded(.up))
                canvas.height = UInt32(picture.height.rounded(.up))
                canvas.scale = 1
                canvas.append = { context, bytes, length in
                    guard let context, let bytes, length > 0 else { return }
                    let s = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
                    guard s.bytes.count + length <= 256 << 20 else { return }
                    s.bytes += UnsafeRawBufferPointer(start: bytes, count: length)
                }
                canvas.append_context = Unmanaged.passUnretained(sink).toOpaque()
            }
        }
        if let failure { throw failed(failure) }
        sink.bytes += Array("</svg>\n".utf8)
        return String(decoding: sink.bytes, as: UTF8.self)
    }

    /// Draws every line on a canvas that `configure` finishes; the first failure, or nil.
    private func drawLines(_ configure: (inout layoutd_canvas) -> Void) -> PluginCallFailure? {
        for l in layout.lines.indices {
            var canvas = self.canvas(line: l)
            configure(&canvas)
            if case .failure(let f) = renderer.draw(line: lines.lines + l, canvas: &canvas) { return f }
        }
        return nil
    }

    private func failed(_ failure: PluginCallFailure) -> RPCError {
        RPCError(.serverError, "renderer \"\(renderer.name)\" failed: \(failure.message)")
    }

    /// A canvas for line `l` with the highlight and selection rects that fall on it (those
    /// whose middle lies in the line's box, in the picture's space).
    private func canvas(line l: Int) -> layoutd_canvas {
        let box = lines.lines[l].box
        func onLine(_ rect: Rect) -> Bool {
            let mid = rect.y + rect.height / 2
            return mid >= box.y && mid < box.y + box.height
        }
        func cRects(_ rects: [Rect]) -> [layoutd_rect] {
            rects.filter(onLine).map { layoutd_rect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
        }
        var canvas = layoutd_canvas()
        canvas.struct_size = UInt32(MemoryLayout<layoutd_canvas>.size)
        canvas.overlay = overlay ? 1 : 0
        let cHighlights = marks.highlights.compactMap { h -> layoutd_highlight? in
            let rects = cRects(h.rects)
            return rects.isEmpty ? nil : layoutd_highlight(state: h.state, rect_count: UInt32(rects.count), rects: arena.array(rects))
        }
        canvas.highlights = arena.array(cHighlights)
        canvas.highlight_count = UInt32(cHighlights.count)
        let selection = cRects(marks.selection)
        canvas.selection = arena.array(selection)
        canvas.selection_count = UInt32(selection.count)
        return canvas
    }
}
