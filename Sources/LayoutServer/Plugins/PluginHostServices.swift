import CLayoutPlugin
import GlyphRaster
import LayoutEngine
#if canImport(Glibc)
import Glibc
#endif

/// The `layoutd_host` table every plugin gets: logging, glyph images and outlines (FreeType,
/// through `GlyphRasterizer`), PNG encoding, and attachment images (`AttachmentImages`). The functions are C callbacks that find the
/// plugin's `PluginHostContext` through `host_context`; they copy nothing they are given
/// beyond the call and never throw across the boundary (failures return -1).
enum PluginHostServices {
    static func table(context: PluginHostContext) -> layoutd_host {
        var host = layoutd_host()
        host.struct_size = UInt32(MemoryLayout<layoutd_host>.size)
        host.abi_version = LAYOUTD_PLUGIN_ABI_VERSION
        host.host_context = Unmanaged.passUnretained(context).toOpaque()
        host.log = { host, level, message in
            guard let host, let message else { return }
            let context = PluginHostServices.context(host)
            let text = "plugin \(context.name): \(String(cString: message))"
            switch level {
            case ...3: Log.error(text)
            case 4: Log.warning(text)
            case 5, 6: Log.info(text)
            default: Log.debug(text)
            }
        }
        host.glyph_image = { host, font, glyph, pixelSize, sink, sinkContext in
            guard let host, let font, let sink, let rasterizer = PluginHostServices.context(host).rasterizer,
                  let source = PluginHostServices.fontSource(font) else { return -1 }
            do {
                try rasterizer.withGlyphImage(file: source.file, index: source.index, variations: source.variations,
                                              glyph: glyph, pixelSize: pixelSize) { bitmap, pixels in
                    var image = layoutd_glyph_image(
                        width: UInt32(bitmap.width), height: UInt32(bitmap.height), left: Int32(bitmap.left),
                        top: Int32(bitmap.top), stride: UInt32(bitmap.stride), format: bitmap.isColor ? 2 : 1,
                        pixels: pixels.baseAddress)
                    sink(sinkContext, &image)
                }
                return 0
            } catch {
                return -1
            }
        }
        host.glyph_outline = { host, font, glyph, pixelSize, sink, sinkContext in
            guard let host, let font, let sink, let rasterizer = PluginHostServices.context(host).rasterizer,
                  let source = PluginHostServices.fontSource(font) else { return -1 }
            do {
                let has = try rasterizer.outline(file: source.file, index: source.index, variations: source.variations,
                                                 glyph: glyph, pixelSize: pixelSize) { segment in
                    var points = [Double](repeating: 0, count: 6)
                    let op: UInt8
                    switch segment {
                    case .move(let x, let y): op = 0x4D; points[0] = x; points[1] = y
                    case .line(let x, let y): op = 0x4C; points[0] = x; points[1] = y
                    case .quad(let a, let b, let c, let d): op = 0x51; points[0] = a; points[1] = b; points[2] = c; points[3] = d
                    case .cubic(let a, let b, let c, let d, let e, let f):
                        op = 0x43; points = [a, b, c, d, e, f]
                    case .close: op = 0x5A
                    }
                    points.withUnsafeBufferPointer { sink(sinkContext, CChar(bitPattern: op), $0.baseAddress) }
                }
                return has ? 0 : 1
            } catch {
                return -1
            }
        }
        addImageServices(&host)
        return host
    }

    /// The image services: `png_base64`, `register_image` (attachment providers, during
    /// `init`) and `attachment_image` (renderers), over the context's `AttachmentImages`.
    private static func addImageServices(_ host: inout layoutd_host) {
        host.png_base64 = { _, rgba, width, height, stride, sink, sinkContext in
            guard let rgba, let sink, width > 0, height > 0, stride >= width * 4 else { return -1 }
            let buffer = UnsafeBufferPointer(start: rgba, count: Int(stride) * Int(height))
            guard let png = try? PNGEncoder.encode(rgba: buffer, width: Int(width), height: Int(height), stride: Int(stride)) else { return -1 }
            var text = Array(PNGEncoder.base64(png).utf8)
            text.withUnsafeMutableBufferPointer { b in
                b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) { sink(sinkContext, $0, b.count) }
            }
            return 0
        }
        host.register_image = { host, name, file in
            guard let host else { return -1 }
            let context = PluginHostServices.context(host)
            guard let name, let file else { return -1 }
            let value = String(cString: name)
            guard context.initializing.load(ordering: .acquiring) else {
                Log.warning("plugin \(context.name): register_image(\"\(value)\") after init is refused (images come from the configuration, at init)")
                return -1
            }
            guard let images = context.images else { return -1 }
            if let refused = images.register(name: value, file: String(cString: file)) {
                Log.warning("plugin \(context.name): \(refused); attachments \"\(value)\" are drawn as placeholders")
                return -1
            }
            return 0
        }
        host.attachment_image = { host, name, sink, sinkContext in
            guard let host, let name, let sink else { return 1 }
            guard let image = PluginHostServices.context(host).images?.image(named: String(cString: name)) else { return 1 }
            image.pixels.withUnsafeBufferPointer { pixels in
                var view = layoutd_image(width: UInt32(image.width), height: UInt32(image.height), stride: UInt32(image.width * 4),
                                         reserved: 0, pixels: pixels.baseAddress)
                sink(sinkContext, &view)
            }
            return 0
        }
    }

    static func context(_ host: UnsafePointer<layoutd_host>) -> PluginHostContext {
        Unmanaged<PluginHostContext>.fromOpaque(host.pointee.host_context).takeUnretainedValue()
    }

    /// The file, face index and variations of an ABI font; nil when the file is not set.
    static func fontSource(_ font: UnsafePointer<layoutd_font>) -> (file: String, index: Int, variations: [(tag: UInt32, value: Double)])? {
        let f = font.pointee
        guard let file = f.file else { return nil }
        var variations: [(tag: UInt32, value: Double)] = []
        if let tags = f.variation_tags, let values = f.variation_values {
            for i in 0..<Int(min(f.variation_count, 64)) { variations.append((tags[i], values[i])) }
        }
        return (String(cString: file), Int(f.index), variations)
    }
}
