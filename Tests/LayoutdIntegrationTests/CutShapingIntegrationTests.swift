import Foundation
import LayoutProtocol
import Testing

/// Lines that start or end inside a word, through the socket: each draws the glyphs its own
/// text shapes to (Arabic letters take their final or initial forms at the cut, Indic
/// conjuncts stay whole), in the width layout gave it.
@Suite struct CutShapingIntegrationTests {
    func layout(_ client: Client, _ text: String, width: Double?, language: String, direction: String,
                detail: String = "glyphs") throws -> LayoutResult {
        var params: [(String, JSONValue)] = [("text", .string(text)), ("font", ["family": "Noto Sans", "size": 16]),
                                             ("language", .string(language)), ("detail", .string(detail)),
                                             ("paragraph", ["wrap": width == nil ? "none" : "char", "direction": .string(direction)])]
        if let width { params.append(("width", .number(width))) }
        return try #require(LayoutResult(json: client.result("layout", .object(params))))
    }

    func glyphIDs(_ line: LineResult) -> [UInt32] {
        (line.runs ?? []).flatMap { ($0.glyphs ?? []).map { UInt32($0.id) } }
    }

    @Test func wordsCutAtALineEdgeAreShapedOnTheirSide() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let cases: [(String, String, String, [Double])] = [
            ("مرحبابالعالمالجميل", "ar", "rtl", [35, 45, 60, 70]),
            ("مستوفى فشلت قراءة بياناتكاملة", "ar", "rtl", [50, 70, 90]),
            // Lines of one long word, longer than the first stretch shaped at each cut.
            ("مرحبابالعالمالجميلوالرائعجداوالمدهشحقاوالكبيرجداجدا", "ar", "rtl", [150, 200]),
            ("नमस्तेदुनियाकैसेहो आवश्यकस्मृति", "hi", "ltr", [50, 70]),
        ]
        var cutLines = 0
        for (text, language, direction, widths) in cases {
            let units = Array(text.utf16)
            for width in widths {
                let cut = try layout(client, text, width: width, language: language, direction: direction)
                let plain = try layout(client, text, width: width, language: language, direction: direction, detail: "lines")
                #expect(cut.lines.map(\.width) == plain.lines.map(\.width), "\(text) at \(width): widths kept")
                for line in cut.lines where line.end > line.start {
                    let piece = String(decoding: units[line.start..<line.end], as: UTF16.self)
                    let alone = try layout(client, piece, width: nil, language: language, direction: direction)
                    #expect(glyphIDs(line) == glyphIDs(try #require(alone.lines.first)), "\(text) at \(width): \(piece)")
                    let drawn = (line.runs ?? []).flatMap { $0.glyphs ?? [] }.reduce(0.0) { $0 + $1.advance }
                    #expect(abs(drawn - line.width) < 0.01, "\(piece): its glyphs span the line's width")
                    if line.start > 0 || line.end < units.count { cutLines += 1 }
                }
            }
        }
        #expect(cutLines > 20)
    }
}
