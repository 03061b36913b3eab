import Foundation
import LayoutProtocol
import Testing

/// `render` as a preview: room around the text (`margin`), SVG for older viewers, link
/// underlines that skip descenders, attachments at their own size and as their images.
@Suite("render previews")
struct RenderPreviewTests {
    @Test func marginAddsRoomAroundTheText() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "Pressed pill"
        func render(margin: Double?) throws -> DecodedPNG {
            var params: [(String, JSONValue)] = [("text", .string(text)), ("format", "png"), ("scale", 2),
                                                 ("highlight", ["start": 0, "end": .number(Double(text.utf16.count)), "state": "pressed"])]
            if let margin { params.append(("margin", .number(margin))) }
            return try picturePNG(try client.result("render", .object(params)))
        }
        let tight = try render(margin: nil), roomy = try render(margin: 10)
        #expect(roomy.width == tight.width + 2 * 10 * 2 && roomy.height == tight.height + 2 * 10 * 2)
        let white = (r: UInt8(255), g: UInt8(255), b: UInt8(255), a: UInt8(255))
        let mid = tight.height / 2
        #expect(tight.pixel(0, mid) != white, "without a margin the pressed highlight touches the picture's edge")
        for x in 0..<20 { #expect(roomy.pixel(x, mid + 20) == white, "the margin is background at x \(x)") }
        #expect(roomy.pixel(21, mid + 20) == tight.pixel(1, mid), "the text and its highlight moved by the margin")

        let svg = try client.result("render", ["text": .string(text), "format": "svg", "margin": 4])
        let layout = try client.result("layout", ["text": .string(text)])
        #expect(svg["width"]?.doubleValue.map { abs($0 - ((layout["size"]?["width"]?.doubleValue ?? 0) + 8)) < 0.01 } == true)
        for bad: JSONValue in [-1, 1001, "wide", [:]] {
            let reply = try client.call("render", ["text": .string(text), "format": "png", "margin": bad])
            #expect(reply["error"]?["code"] == -32602 && reply["error"]?["data"]?["field"] == "margin", "\(bad)")
        }
    }

    @Test func linkUnderlinesSkipDescenders() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "see typography now"
        let link = utf16Range(of: "typography", in: text)
        let params: JSONValue = ["text": .string(text),
                                 "spans": [["start": .number(Double(link.start)), "end": .number(Double(link.end)), "link": "https://t.example"]]]
        // Where each glyph of the link sits: its pen position and advance, by cluster.
        let layout = try client.result("layout", .object((params.objectMembers ?? []) + [("detail", "glyphs")]))
        let line = try #require(layout["lines"]?.arrayValue?.first)
        var glyphs: [Int: (x: Double, advance: Double)] = [:]
        for run in line["runs"]?.arrayValue ?? [] {
            var pen = run["x"]?.doubleValue ?? 0
            for g in run["glyphs"]?.arrayValue ?? [] {
                let advance = g["advance"]?.doubleValue ?? 0
                glyphs[g["cluster"]?.intValue ?? -1] = (pen, advance)
                pen += advance
            }
        }
        let scale = 4.0
        let png = try picturePNG(try client.result("render", .object((params.objectMembers ?? []) + [("format", "png"), ("scale", .number(scale))])))
        let row = Int(((line["baseline"]?.doubleValue ?? 0) + 2) * scale)
        /// Columns under the glyph of the character at `offset` where the underline row is
        /// left as background (white), and where it is drawn (blue).
        func underline(at offset: Int) throws -> (gaps: Int, drawn: Int) {
            let g = try #require(glyphs[offset])
            var gaps = 0, drawn = 0
            for x in Int(g.x * scale)..<Int((g.x + g.advance) * scale) {
                let p = png.pixel(x, row)
                if p.r > 240 && p.g > 240 && p.b > 240 { gaps += 1 }
                if Int(p.b) - Int(p.r) > 120 { drawn += 1 }
            }
            return (gaps, drawn)
        }
        let units = Array(text.utf16)
        let y = try underline(at: link.start + 1), p = try underline(at: link.start + 2)
        #expect(units[link.start + 1] == 0x79 && units[link.start + 2] == 0x70)
        #expect(y.gaps >= 4 && p.gaps >= 4, "gaps under the descenders of y and p: \(y), \(p)")
        let o = try underline(at: link.start + 3), a = try underline(at: link.start + 6)
        #expect(o.gaps == 0 && a.gaps == 0 && o.drawn > 10 && a.drawn > 10, "no gap under o and a: \(o), \(a)")
    }

    @Test func svgImagesCarryXlinkHrefForOlderViewers() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let svg = try client.result("render", ["text": "Nice 👍🏽 work", "format": "svg"])
        let data = try #require(svg["data"]?.stringValue)
        #expect(data.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\""))
        let images = data.components(separatedBy: "<image").dropFirst()
        #expect(!images.isEmpty, "the colour emoji is an <image>")
        for image in images {
            let element = image.prefix { $0 != ">" }
            #expect(element.contains(" href=\"data:image/png;base64,") && element.contains(" xlink:href=\"data:image/png;base64,"))
        }
    }
}

/// Attachments drawn as the images the configuration names (shortcodes' `imageFolder`), in
/// the object's own box; placeholders for images that cannot be read, and for any file a
/// request names.
@Suite("render previews: attachment images")
struct AttachmentImageTests {
    /// A daemon whose shortcodes show Tests/Fixtures/images/halves.png (8 × 8, left half red,
    /// right half blue), copied beside a configuration that names it relatively, with a
    /// corrupt PNG, a symbolic link to the good one and a missing file beside it.
    static func daemon() throws -> Daemon {
        let folder = try temporaryFolder()
        let images = "\(folder)/images"
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/Tests/Fixtures/images/halves.png", toPath: "\(images)/halves.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]).write(to: URL(fileURLWithPath: "\(images)/corrupt.png"))
        try FileManager.default.createSymbolicLink(atPath: "\(images)/link.png", withDestinationPath: "\(images)/halves.png")
        func code(_ image: String, _ width: Int, _ ascent: Int, _ descent: Int) -> String {
            #"{"image": "\#(image)", "width": \#(width), "ascent": \#(ascent), "descent": \#(descent)}"#
        }
        let config = """
        {"fontConfig": "\(repositoryRoot)/config/fonts.conf",
         "plugins": {"options": {"shortcodes": {"imageFolder": "images", "unit": "pt", "codes": {
           "[small]": \(code("halves.png", 8, 8, 0)), "[big]": \(code("halves.png", 24, 20, 6)),
           "[bad]": \(code("corrupt.png", 12, 10, 2)), "[link]": \(code("link.png", 12, 10, 2)),
           "[gone]": \(code("missing.png", 12, 10, 2))}}}}}
        """
        try config.write(toFile: "\(folder)/layoutd.json", atomically: true, encoding: .utf8)
        return try Daemon(configPath: "\(folder)/layoutd.json")
    }

    /// The attachment regions of `params` laid out, and its PNG at scale 2.
    static func picture(_ client: Client, _ params: JSONValue) throws -> (regions: [JSONValue], png: DecodedPNG) {
        let layout = try client.result("layout", params)
        let png = try picturePNG(try client.result("render", .object((params.objectMembers ?? []) + [("format", "png"), ("scale", 2)])))
        return ((layout["regions"]?.arrayValue ?? []).filter { $0["kind"] == "attachment" }, png)
    }

    /// The pixel at the point (fx, fy) of `region`'s rect, as fractions of its size, at scale 2.
    static func pixel(_ png: DecodedPNG, _ region: JSONValue, _ fx: Double, _ fy: Double) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let rect = region["rects"]?.arrayValue?.first
        let x = (rect?["x"]?.doubleValue ?? 0) + fx * (rect?["width"]?.doubleValue ?? 0)
        let y = (rect?["y"]?.doubleValue ?? 0) + fy * (rect?["height"]?.doubleValue ?? 0)
        return png.pixel(Int(x * 2), Int(y * 2))
    }

    static func isRed(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Bool { p.r > 230 && p.g < 25 && p.b < 25 }
    static func isBlue(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Bool { p.b > 230 && p.r < 25 && p.g < 25 }
    static func isPlaceholder(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Bool { p.r == 0xe0 && p.g == 0xe0 && p.b == 0xe0 }

    @Test func configuredImagesAreDrawnInTheObjectsOwnBox() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let (regions, png) = try Self.picture(client, ["text": "Hi [small] and [big] there", "attachments": true])
        #expect(regions.count == 2)
        for region in regions {
            #expect(Self.isRed(Self.pixel(png, region, 0.2, 0.5)), "left half red: \(Self.pixel(png, region, 0.2, 0.5))")
            #expect(Self.isBlue(Self.pixel(png, region, 0.8, 0.5)), "right half blue: \(Self.pixel(png, region, 0.8, 0.5))")
        }
        // [small] is 8 points tall on a line about 22 tall: just above its own box is
        // background, not the image or a box as tall as the line.
        let small = regions[0], rect = try #require(small["rects"]?.arrayValue?.first)
        #expect((rect["height"]?.doubleValue ?? 0) == 8)
        let above = png.pixel(Int(((rect["x"]?.doubleValue ?? 0) + 2) * 2), Int(((rect["y"]?.doubleValue ?? 0) - 2) * 2))
        #expect(above.r == 255 && above.g == 255 && above.b == 255, "above the object's box: \(above)")

        let svg = try client.result("render", ["text": "Hi [small]", "attachments": true, "format": "svg"])
        let data = try #require(svg["data"]?.stringValue)
        #expect(data.contains("preserveAspectRatio=\"none\" href=\"data:image/png;base64,") && data.contains("xlink:href=\"data:image/png;base64,"))
    }

    @Test func unreadableImagesAndRequestPathsArePlaceholders() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let fixture = "\(repositoryRoot)/Tests/Fixtures/images/halves.png"
        let (regions, png) = try Self.picture(client, [
            "text": "[bad] [link] [gone] [mine] [small]",
            "attachments": [["provider": "shortcodes", "codes": ["[mine]": ["image": .string(fixture), "width": 12, "ascent": 10, "descent": 2]]]],
        ])
        #expect(regions.count == 5)
        for region in regions.prefix(4) {
            #expect(Self.isPlaceholder(Self.pixel(png, region, 0.5, 0.5)), "\(region["value"] ?? .null) is a placeholder")
        }
        #expect(Self.isRed(Self.pixel(png, regions[4], 0.2, 0.5)), "a configured image beside them is drawn")
        // A client's attachment span naming the file is a placeholder too: values are names.
        let span: JSONValue = ["start": 0, "end": 1, "attachment": ["width": 12, "ascent": 10, "value": .string(fixture)]]
        let own = try Self.picture(client, ["text": "x", "spans": [span]])
        #expect(Self.isPlaceholder(Self.pixel(own.png, try #require(own.regions.first), 0.5, 0.5)))
        let log = daemon.log
        #expect(log.contains("corrupt.png") && log.contains("not a PNG"), "the corrupt image is logged")
        #expect(log.contains("link.png") && log.contains("open"), "the symbolic link is refused and logged")
        #expect(log.contains("missing.png"), "the missing image is logged")
        #expect(!log.contains("halves.png\" is already"), "the same image under two codes is one registration")
    }
}
