import CLayoutPlugin
import LayoutEngine
import LayoutProtocol

/// A text as plugins see it: UTF-8 bytes, with the byte offset of every UTF-16 offset and
/// back. Lone surrogates become U+FFFD (3 bytes), as everywhere else. Linear to build.
struct PluginText {
    let bytes: [UInt8]
    /// `utf8[i]`: byte offset of UTF-16 offset i (count + 1 entries; the second unit of a
    /// surrogate pair maps to its pair's start).
    let utf8: [Int32]

    init(utf16 text: [UInt16]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count * 3)
        var utf8 = [Int32](repeating: 0, count: text.count + 1)
        var i = 0
        while i < text.count {
            utf8[i] = Int32(bytes.count)
            let u = text[i]
            var scalar = UInt32(u)
            var units = 1
            if u & 0xFC00 == 0xD800, i + 1 < text.count, text[i + 1] & 0xFC00 == 0xDC00 {
                scalar = 0x10000 + ((UInt32(u) - 0xD800) << 10) + (UInt32(text[i + 1]) - 0xDC00)
                units = 2
            } else if u & 0xF800 == 0xD800 {
                scalar = 0xFFFD
            }
            if units == 2 { utf8[i + 1] = Int32(bytes.count) }
            switch scalar {
            case ..<0x80: bytes.append(UInt8(scalar))
            case ..<0x800: bytes += [UInt8(0xC0 | scalar >> 6), UInt8(0x80 | scalar & 0x3F)]
            case ..<0x10000:
                bytes += [UInt8(0xE0 | scalar >> 12), UInt8(0x80 | scalar >> 6 & 0x3F), UInt8(0x80 | scalar & 0x3F)]
            default:
                bytes += [UInt8(0xF0 | scalar >> 18), UInt8(0x80 | scalar >> 12 & 0x3F), UInt8(0x80 | scalar >> 6 & 0x3F),
                          UInt8(0x80 | scalar & 0x3F)]
            }
            i += units
        }
        utf8[text.count] = Int32(bytes.count)
        self.bytes = bytes
        self.utf8 = utf8
    }

    /// The UTF-16 offset of a byte offset on a character boundary (the first UTF-16 offset
    /// whose byte offset is `byte`; past a pair's start for its second unit).
    func utf16(_ byte: Int) -> Int {
        var lo = 0, hi = utf8.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int(utf8[mid]) < byte { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    func byte(_ utf16: Int) -> UInt32 { UInt32(utf8[min(max(0, utf16), utf8.count - 1)]) }
}

/// Lines of a layout in the ABI's form (`layoutd_line`), for renderers: every pointer in
/// them lives in `arena`, which must outlive the calls they are passed to.
struct PluginLines {
    let lines: UnsafeMutablePointer<layoutd_line>
    let count: Int
    let text: PluginText

    /// Builds the lines of `layout` (made from `built`, whose runs carry glyphs when the
    /// layout was made with glyph detail), with `regions`' rects on the lines they fall on
    /// and `options` as each line's renderer options. Every coordinate is moved right and
    /// down by `origin` (a picture's margin).
    init(layout: TextLayout, built: BuiltRequest, regions: [RetainedLayout.Region], options: JSONValue, arena: CArena,
         origin: Double = 0) {
        let text = PluginText(utf16: built.request.text)
        self.text = text
        var shared = Shared(textPointer: arena.bytes(text.bytes), textLength: text.bytes.count, options: arena.value(options),
                            origin: origin)
        let fonts = layout.fonts.map { f -> layoutd_font in
            var font = layoutd_font()
            font.file = arena.string(f.identity.path)
            font.index = UInt32(f.identity.index)
            font.size = f.size
            font.variation_count = UInt32(f.variations.count)
            font.variation_tags = arena.array(f.variations.map { Self.tag($0.tag) })
            font.variation_values = arena.array(f.variations.map(\.value))
            return font
        }
        shared.fonts = arena.array(fonts)
        shared.fontCount = UInt32(fonts.count)
        let onLines = Self.regionsByLine(layout: layout, regions: regions, text: text, arena: arena, origin: origin)
        let styles = built.styles.map { Self.style($0) }
        let lines = arena.allocate(layoutd_line.self, count: layout.lines.count)
        for (l, line) in layout.lines.enumerated() {
            var c = shared.line(line, index: l, text: text)
            let runs = line.runs.map { Self.run($0, line: line, built: built, styles: styles, text: text, arena: arena, origin: origin) }
            c.runs = arena.array(runs)
            c.run_count = UInt32(runs.count)
            c.regions = arena.array(onLines[l])
            c.region_count = UInt32(onLines[l].count)
            lines[l] = c
        }
        self.lines = lines
        self.count = layout.lines.count
    }

    /// What every line of a layout shares: the text, the options, the fonts, the origin.
    private struct Shared {
        var textPointer: UnsafePointer<CChar>
        var textLength: Int
        var options: UnsafePointer<layoutd_value>
        var origin: Double
        var fonts: UnsafePointer<layoutd_font>?
        var fontCount: UInt32 = 0

        /// Line `index`'s fields but its runs and regions.
        func line(_ line: LineBox, index: Int, text: PluginText) -> layoutd_line {
            var c = layoutd_line()
            c.struct_size = UInt32(MemoryLayout<layoutd_line>.size)
            c.index = UInt32(index)
            c.start = text.byte(line.start)
            c.end = text.byte(line.end)
            c.box = layoutd_rect(x: line.x + origin, y: line.y + origin, width: line.width, height: line.height)
            c.baseline = line.baseline + origin
            c.ascent = line.ascent
            c.descent = line.descent
            c.text = textPointer
            c.text_length = textLength
            c.rtl = line.isRTL ? 1 : 0
            c.fonts = fonts
            c.font_count = fontCount
            c.options = options
            return c
        }
    }

    /// One run of `line` in the ABI's form, its glyphs placed absolutely.
    private static func run(_ run: LineRun, line: LineBox, built: BuiltRequest, styles: [layoutd_style], text: PluginText,
                            arena: CArena, origin: Double) -> layoutd_run {
        var r = layoutd_run()
        r.start = text.byte(run.start)
        r.end = text.byte(run.end)
        r.font = UInt32(max(0, run.font))
        r.rtl = run.isRTL ? 1 : 0
        r.x = run.x + origin
        r.width = run.width
        r.baseline = line.baseline - run.baselineOffset + origin
        let attributes = run.style < built.styles.count ? built.styles[run.style] : SpanAttributes()
        r.style = run.style < styles.count ? styles[run.style] : Self.style(SpanAttributes())
        r.is_token = run.isToken ? 1 : 0
        if let attachment = attributes.attachment, !run.isToken {
            r.style.is_attachment = 1
            switch attachment.value {
            case .string(let s)?: r.attachment_value = arena.string(s)
            case nil, .null?: break
            case let other?: r.attachment_value = arena.string(JSONWriter.string(other))
            }
        }
        var pen = r.x
        let baseline = r.baseline
        let glyphs = run.glyphs.map { g -> layoutd_glyph in
            defer { pen += g.advance }
            return layoutd_glyph(id: g.id, cluster: text.byte(g.cluster), x: pen + g.xOffset, y: baseline - g.yOffset, advance: g.advance)
        }
        r.glyph_count = UInt32(glyphs.count)
        r.glyphs = arena.array(glyphs)
        return r
    }

    /// For each line, the regions with a rect on it (the line whose box holds the rect's
    /// middle), each with only its rects there, moved by `origin`.
    private static func regionsByLine(layout: TextLayout, regions: [RetainedLayout.Region], text: PluginText, arena: CArena,
                                      origin: Double) -> [[layoutd_region]] {
        var byLine = [[(region: Int, rects: [layoutd_rect])]](repeating: [], count: layout.lines.count)
        for (r, region) in regions.enumerated() {
            for rect in region.rects {
                let mid = rect.y + rect.height / 2
                let l = min(layout.lines.partitionPoint { $0.y + $0.height <= mid }, layout.lines.count - 1)
                guard l >= 0 else { continue }
                let moved = layoutd_rect(x: rect.x + origin, y: rect.y + origin, width: rect.width, height: rect.height)
                if byLine[l].last?.region == r { byLine[l][byLine[l].count - 1].rects.append(moved) } else { byLine[l].append((r, [moved])) }
            }
        }
        let kinds = regions.map { arena.string($0.kind) }
        let values: [UnsafePointer<CChar>?] = regions.map { region in
            switch region.value {
            case .string(let s)?: arena.string(s)
            case nil, .null?: nil
            case let other?: arena.string(JSONWriter.string(other))
            }
        }
        return byLine.map { entries in
            entries.map { entry in
                let region = regions[entry.region]
                return layoutd_region(start: text.byte(region.start), end: text.byte(region.end), kind: kinds[entry.region],
                                      value: values[entry.region], rect_count: UInt32(entry.rects.count),
                                      flags: region.enabled ? 0 : LAYOUTD_REGION_DISABLED, rects: arena.array(entry.rects))
            }
        }
    }

    /// An OpenType tag ("wght") as its 32-bit value.
    static func tag(_ s: String) -> UInt32 {
        var v: UInt32 = 0
        for b in Array(s.utf8.prefix(4)) + Array(repeating: 0x20, count: max(0, 4 - s.utf8.count)) { v = v << 8 | UInt32(b) }
        return v
    }

    /// A composed span style in the ABI's form.
    static func style(_ a: SpanAttributes) -> layoutd_style {
        var s = layoutd_style()
        s.color = ColorValue.parse(a.color) ?? 0x000000FF
        s.background = ColorValue.parse(a.background) ?? 0
        if case .some(.some(let u)) = a.underline {
            s.underline = ["single": 1, "double": 2, "thick": 3][u.style] ?? 1
            s.underline_color = ColorValue.parse(u.color) ?? s.color
        }
        if case .some(.some(let t)) = a.strikethrough {
            s.strikethrough = 1
            s.strikethrough_color = ColorValue.parse(t.color) ?? s.color
        }
        return s
    }

    /// The probe's renderer check: a one-line sample laid out by hand (no glyphs, one link
    /// region), decorated and drawn onto a small RGBA and SVG canvas. nil when it passed.
    static func probeRenderer(_ plugin: LoadedPlugin, text: [UInt8]) -> String? {
        let arena = CArena()
        var line = layoutd_line()
        line.struct_size = UInt32(MemoryLayout<layoutd_line>.size)
        line.end = UInt32(text.count)
        line.box = layoutd_rect(x: 0, y: 0, width: 120, height: 20)
        line.baseline = 15
        line.ascent = 15
        line.descent = 5
        line.text = arena.bytes(text)
        line.text_length = text.count
        line.options = arena.value([:])
        var run = layoutd_run()
        run.end = UInt32(text.count)
        run.width = 120
        run.baseline = 15
        run.style = style(SpanAttributes())
        line.runs = arena.array([run])
        line.run_count = 1
        let rect = layoutd_rect(x: 10, y: 0, width: 40, height: 20)
        line.regions = arena.array([layoutd_region(start: 7, end: 32, kind: arena.string("url"), value: arena.string("https://example.com/a?b=1"),
                                                   rect_count: 1, flags: 0, rects: arena.array([rect]))])
        line.region_count = 1
        return withUnsafePointer(to: &line) { linePointer -> String? in
            if plugin.table.pointee.decorate != nil, case .failure(let f) = plugin.decorate(line: linePointer, textBytes: text) {
                return "its decorate call failed on a sample line: \(f.message)"
            }
            guard plugin.table.pointee.draw != nil else { return nil }
            let pixels = arena.allocate(UInt8.self, count: 120 * 20 * 4)
            var canvas = layoutd_canvas()
            canvas.struct_size = UInt32(MemoryLayout<layoutd_canvas>.size)
            canvas.format = UInt32(LAYOUTD_CANVAS_RGBA.rawValue)
            canvas.width = 120
            canvas.height = 20
            canvas.stride = 480
            canvas.scale = 1
            canvas.pixels = pixels
            if case .failure(let f) = withUnsafePointer(to: &canvas, { plugin.draw(line: linePointer, canvas: $0) }) {
                return "its draw call failed on a sample line: \(f.message)"
            }
            return nil
        }
    }
}
