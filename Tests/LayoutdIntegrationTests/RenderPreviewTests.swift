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
