import CZlib
import Foundation
import LayoutProtocol
import Testing

/// A decoded PNG: 8-bit RGBA pixels, row after row.
struct DecodedPNG {
    var width: Int
    var height: Int
    var pixels: [UInt8]

    func pixel(_ x: Int, _ y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }

    /// Decodes an 8-bit RGBA, non-interlaced PNG (what layoutd writes); nil otherwise.
    init?(_ data: [UInt8]) {
        guard data.count > 8, data[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
        func u32(_ i: Int) -> Int { Int(data[i]) << 24 | Int(data[i + 1]) << 16 | Int(data[i + 2]) << 8 | Int(data[i + 3]) }
        var i = 8, idat: [UInt8] = []
        var w = 0, h = 0
        while i + 8 <= data.count {
            let length = u32(i)
            let type = String(decoding: data[(i + 4)..<(i + 8)], as: UTF8.self)
            guard i + 12 + length <= data.count else { return nil }
            let body = Array(data[(i + 8)..<(i + 8 + length)])
            if type == "IHDR" {
                w = u32(i + 8); h = u32(i + 12)
                guard body[8] == 8, body[9] == 6, body[12] == 0 else { return nil }
            } else if type == "IDAT" {
                idat += body
            }
            i += 12 + length
        }
        guard w > 0, h > 0 else { return nil }
        var raw = [UInt8](repeating: 0, count: (w * 4 + 1) * h)
        var rawLength = uLongf(raw.count)
        let status = raw.withUnsafeMutableBufferPointer { out in
            idat.withUnsafeBufferPointer { uncompress(out.baseAddress, &rawLength, $0.baseAddress, uLong($0.count)) }
        }
        guard status == Z_OK, Int(rawLength) == raw.count else { return nil }
        let stride = w * 4
        var pixels = [UInt8](repeating: 0, count: stride * h)
        for y in 0..<h {
            let filter = raw[y * (stride + 1)]
            for x in 0..<stride {
                let v = raw[y * (stride + 1) + 1 + x]
                let a = x >= 4 ? Int(pixels[y * stride + x - 4]) : 0
                let b = y > 0 ? Int(pixels[(y - 1) * stride + x]) : 0
                let c = x >= 4 && y > 0 ? Int(pixels[(y - 1) * stride + x - 4]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                default: return nil
                }
                pixels[y * stride + x] = UInt8((Int(v) + predictor) & 0xFF)
            }
        }
        width = w; height = h; self.pixels = pixels
    }
}

func base64Decode(_ s: String) -> [UInt8]? { Data(base64Encoded: s).map { Array($0) } }

@Suite("render: PNG and SVG of a layout")
struct RenderTests {
    static let multilingual = "Hello, world — مرحبا بالعالم — 你好，世界 — नमस्ते — 👍🏽 https://example.com/path"

    @Test func pngOfAMultilingualParagraphIsSizedLikeTheLayout() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let layout = try client.result("layout", ["text": .string(Self.multilingual), "width": 260, "retain": true,
                                                   "detectors": ["url"]])
        let handle = try #require(layout["handle"]?.stringValue)
        let lines = layout["lines"]?.arrayValue ?? []
        let width = max(layout["size"]?["width"]?.doubleValue ?? 0,
                        lines.map { ($0["x"]?.doubleValue ?? 0) + ($0["width"]?.doubleValue ?? 0) }.max() ?? 0)
        let height = layout["size"]?["height"]?.doubleValue ?? 0
        let picture = try client.result("render", ["handle": .string(handle), "format": "png", "scale": 2])
        #expect(picture["format"] == "png")
        let bytes = try #require(base64Decode(picture["data"]?.stringValue ?? ""))
        let png = try #require(DecodedPNG(bytes))
        #expect(png.width == Int((width * 2).rounded(.up)))
        #expect(png.height == Int((height * 2).rounded(.up)))
        #expect(picture["width"] == .number(Double(png.width)))
        // Ink: dark pixels where glyphs are, on every line; colour where the emoji is.
        var dark = 0, colored = 0
        for y in 0..<png.height {
            for x in 0..<png.width {
                let p = png.pixel(x, y)
                if p.r < 100 && p.g < 100 && p.b < 100 { dark += 1 }
                if Int(p.r) - Int(p.b) > 80 { colored += 1 }
            }
        }
        #expect(dark > 2000, "glyphs drawn: \(dark) dark pixels")
        #expect(colored > 50, "the colour emoji drawn: \(colored) pixels")
        for line in lines {
            let top = Int((line["y"]?.doubleValue ?? 0) * 2), bottom = top + Int((line["height"]?.doubleValue ?? 0) * 2)
            var ink = 0
            for y in top..<min(bottom, png.height) { for x in 0..<png.width where png.pixel(x, y).r < 128 { ink += 1 } }
            #expect(ink > 100, "line at y \(top / 2) has ink")
        }
    }

    @Test func highlightSelectionAndOverlayChangeThePicture() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "Tap @alice to open her profile"
        let mention = utf16Range(of: "@alice", in: text)
        let base: JSONValue = ["text": .string(text), "format": "png", "detectors": ["mention"]]
        func render(_ extra: [(String, JSONValue)]) throws -> DecodedPNG {
            let params = JSONValue.object((base.objectMembers ?? []) + extra)
            let bytes = try #require(base64Decode(try client.result("render", params)["data"]?.stringValue ?? ""))
            return try #require(DecodedPNG(bytes))
        }
        let plain = try render([])
        let highlight: JSONValue = ["start": .number(Double(mention.start)), "end": .number(Double(mention.end))]
        let normal = try render([("highlight", .object((highlight.objectMembers ?? []) + [("state", "normal")]))])
        let pressed = try render([("highlight", .object((highlight.objectMembers ?? []) + [("state", "pressed")]))])
        let overlay = try render([("overlay", true)])
        #expect(plain.width == normal.width && plain.height == normal.height)
        func differing(_ a: DecodedPNG, _ b: DecodedPNG) -> Int {
            zip(stride(from: 0, to: a.pixels.count, by: 4), stride(from: 0, to: b.pixels.count, by: 4))
                .filter { a.pixels[$0.0..<$0.0 + 4] != b.pixels[$0.1..<$0.1 + 4] }.count
        }
        #expect(differing(plain, normal) > 100)
        #expect(differing(normal, pressed) > 100, "pressed is drawn differently from normal")
        #expect(differing(plain, overlay) > 100)
        // The highlight is behind the mention only: the far right of the line is untouched.
        let x = plain.width - 3, y = plain.height / 2
        #expect(plain.pixel(x, y) == normal.pixel(x, y))
    }

    @Test func svgOfAMultilingualParagraph() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let layout = try client.result("layout", ["text": .string(Self.multilingual), "width": 260])
        let svg = try client.result("render", ["text": .string(Self.multilingual), "width": 260, "format": "svg"])
        let data = try #require(svg["data"]?.stringValue)
        #expect(data.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(data.hasSuffix("</svg>\n"))
        #expect(data.components(separatedBy: "<path").count > 40, "glyph outlines")
        #expect(data.contains("data:image/png;base64,"), "the colour emoji as an image")
        #expect(svg["height"] == layout["size"]?["height"])
        // Well-formed enough: every element closed.
        #expect(data.components(separatedBy: "<").count - 1 >= data.components(separatedBy: "/>").count - 1)
    }

    @Test func layoutctlRenderWritesAPicture() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let output = "\(daemon.folder)/out.png"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Daemon.binary()).deletingLastPathComponent().appendingPathComponent("layoutctl")
        process.arguments = ["--socket", daemon.socketPath, "render", "--width", "200", "--detect", "url", "--overlay",
                             "-o", output, "See https://example.com — 你好"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let png = try #require(DecodedPNG(Array(try Data(contentsOf: URL(fileURLWithPath: output)))))
        #expect(png.width > 100 && png.height > 20)
    }

    @Test func tooLargeAPictureIsRefused() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = String(repeating: "line\n", count: 3000)
        let reply = try client.call("render", ["text": .string(text), "format": "png", "scale": 8])
        #expect(reply["error"]?["code"] == -32602)
        #expect(reply["error"]?["data"]?["field"] == "scale")
    }
}
