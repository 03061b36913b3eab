import Foundation
import LayoutProtocol
import Testing

/// Disabled links (`link` with `enabled: false`) and inline code (`code: true`), through the
/// socket: their regions, hit-testing, decorations and how `render` draws them.
@Suite("link states and inline code")
struct LinkStateTests {
    static let text = "Open docs or help now"

    /// The layout params: "docs" a disabled link, "help" an enabled one.
    static func linkParams(_ extra: [(String, JSONValue)] = []) -> JSONValue {
        let docs = utf16Range(of: "docs", in: text), help = utf16Range(of: "help", in: text)
        let spans: JSONValue = [
            ["start": .number(Double(docs.start)), "end": .number(Double(docs.end)), "link": "https://a.example/docs", "enabled": false],
            ["start": .number(Double(help.start)), "end": .number(Double(help.end)), "link": "https://a.example/help"],
        ]
        return .object([("text", .string(text)), ("spans", spans)] + extra)
    }

    @Test func aDisabledLinkSaysSoInItsRegionAndInHitTest() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let layout = try client.result("layout", Self.linkParams([("retain", true)]))
        let regions = layout["regions"]?.arrayValue ?? []
        #expect(regions.count == 2)
        let disabled = try #require(regions.first { $0["value"] == "https://a.example/docs" })
        let enabled = try #require(regions.first { $0["value"] == "https://a.example/help" })
        #expect(disabled["kind"] == "link" && disabled["enabled"] == .bool(false))
        #expect(enabled["enabled"] == nil, "an enabled link's region has no `enabled` member")

        let handle = try #require(layout["handle"]?.stringValue)
        func hit(_ region: JSONValue) throws -> JSONValue? {
            let rect = try #require(region["rects"]?.arrayValue?.first)
            let x = (rect["x"]?.doubleValue ?? 0) + (rect["width"]?.doubleValue ?? 0) / 2
            let y = (rect["y"]?.doubleValue ?? 0) + (rect["height"]?.doubleValue ?? 0) / 2
            return try client.result("hitTest", ["handle": .string(handle), "x": .number(x), "y": .number(y)])["region"]
        }
        let hitDisabled = try #require(try hit(disabled))
        #expect(hitDisabled["kind"] == "link" && hitDisabled["enabled"] == .bool(false))
        let hitEnabled = try #require(try hit(enabled))
        #expect(hitEnabled["value"] == "https://a.example/help" && hitEnabled["enabled"] == nil)
    }

    @Test func renderDrawsADisabledLinkInTheDisabledStyle() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let layout = try client.result("layout", Self.linkParams())
        let baseline = try #require(layout["lines"]?.arrayValue?.first?["baseline"]?.doubleValue)
        let picture = try client.result("render", Self.linkParams([("format", "png"), ("scale", 2)]))
        let png = try picturePNG(picture)
        // The link underline is 1 point thick, centred 2 points below the baseline.
        let row = Int(((baseline + 2) * 2).rounded(.down))
        func underline(_ value: String) throws -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
            let region = try #require(layout["regions"]?.arrayValue?.first { $0["value"] == .string(value) })
            let rect = try #require(region["rects"]?.arrayValue?.first)
            let x = Int((rect["x"]?.doubleValue ?? 0) * 2 + 3)
            let pixels = (row - 1...row + 1).map { png.pixel(x, $0) }
            func sum(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Int { Int(p.r) + Int(p.g) + Int(p.b) }
            return pixels.min { sum($0) < sum($1) }!
        }
        let grey = try underline("https://a.example/docs"), blue = try underline("https://a.example/help")
        #expect(Int(blue.b) - Int(blue.r) > 80, "an enabled link is underlined in the link colour: \(blue)")
        #expect(abs(Int(grey.r) - Int(grey.b)) < 24 && grey.r < 200, "a disabled link is underlined in grey: \(grey)")
    }

    @Test func aCodeSpanIsACodeRegionThatIsPilledWhereADataSpanIsNot() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "Run make test as @bob said"
        let code = utf16Range(of: "make test", in: text), data = utf16Range(of: "@bob", in: text)
        let params: JSONValue = [
            "text": .string(text), "decorations": true,
            "spans": [["start": .number(Double(code.start)), "end": .number(Double(code.end)), "code": true],
                      ["start": .number(Double(data.start)), "end": .number(Double(data.end)), "data": ["user": 7]]],
        ]
        let layout = try client.result("layout", params)
        let regions = layout["regions"]?.arrayValue ?? []
        let codeRegion = try #require(regions.first { $0["kind"] == "code" })
        #expect(codeRegion["start"] == .number(Double(code.start)) && codeRegion["value"] == nil)
        let dataRegion = try #require(regions.first { $0["kind"] == "data" })
        let pills = (layout["lines"]?.arrayValue?.first?["decorations"]?.arrayValue ?? []).filter { $0["role"] == "pill" }
        func x(_ region: JSONValue) -> Double { region["rects"]?.arrayValue?.first?["x"]?.doubleValue ?? -1 }
        #expect(pills.count == 1, "one pill: behind the code, not the data span")
        #expect(abs((pills.first?["x"]?.doubleValue ?? 0) - x(codeRegion)) < 0.01)
        #expect(!pills.contains { abs(($0["x"]?.doubleValue ?? 0) - x(dataRegion)) < 0.01 })

        // `render` draws the pill (#eeeeee) behind the code and nothing behind the data span.
        let picture = try client.result("render", .object((params.objectMembers ?? []).filter { $0.0 != "decorations" } + [("format", "png")]))
        let png = try picturePNG(picture)
        // A row 2 points under the line's top: inside the pill (which spans the line's ascent
        // and descent), above every glyph of this text.
        let line = try #require(layout["lines"]?.arrayValue?.first)
        let row = Int((line["baseline"]?.doubleValue ?? 0) - (line["ascent"]?.doubleValue ?? 0) + 2)
        func pillPixels(_ region: JSONValue) -> (pill: Int, width: Int) {
            guard let rect = region["rects"]?.arrayValue?.first else { return (0, 0) }
            let x0 = Int(rect["x"]?.doubleValue ?? 0), x1 = min(x0 + Int(rect["width"]?.doubleValue ?? 0), png.width)
            let pill = (x0..<x1).filter { let p = png.pixel($0, row); return p.r == 0xee && p.g == 0xee && p.b == 0xee }.count
            return (pill, x1 - x0)
        }
        let underCode = pillPixels(codeRegion), underData = pillPixels(dataRegion)
        #expect(underCode.pill * 10 > underCode.width * 8, "the code span's pill is drawn: \(underCode)")
        #expect(underData.pill == 0, "a data span is not pilled: \(underData)")
    }

    @Test func badLinkStateOrCodeValuesAreInvalidParamsNamingTheField() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let cases: [(JSONValue, String, String)] = [
            (["start": 0, "end": 2, "link": "https://a.example", "enabled": "no"], "spans[0].enabled", "true or false"),
            (["start": 0, "end": 2, "enabled": false], "spans[0].enabled", "give `link`"),
            (["start": 0, "end": 2, "code": 1], "spans[0].code", "true or false"),
        ]
        for (span, field, words) in cases {
            let reply = try client.call("layout", ["text": "hello", "spans": [span]])
            #expect(reply["error"]?["code"] == -32602)
            #expect(reply["error"]?["data"]?["field"] == .string(field))
            #expect(reply["error"]?["message"]?.stringValue?.contains(words) == true, "\(reply)")
        }
    }
}

/// The PNG of a `render` result, decoded.
func picturePNG(_ picture: JSONValue) throws -> DecodedPNG {
    let bytes = try #require(base64Decode(picture["data"]?.stringValue ?? ""))
    return try #require(DecodedPNG(bytes))
}
