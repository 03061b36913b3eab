import Foundation
import LayoutProtocol
import Testing

/// `paragraph.wrapStyle` "optimal" and "pretty" through the socket.
@Suite(.serialized) struct WrapStyleIntegrationTests {
    static let text = "Typography is the art and technique of arranging type to make written language legible, readable "
        + "and appealing when displayed. The arrangement of type involves selecting typefaces, point sizes, line "
        + "lengths, line spacing and letter spacing, and adjusting the space between pairs of letters."

    func lines(_ client: Client, _ paragraph: JSONValue, width: Double = 220, text: String = Self.text) throws -> [LineResult] {
        try #require(LayoutResult(json: client.result("layout", [
            "text": .string(text), "width": .number(width), "font": ["family": "Noto Sans", "size": 16], "language": "en",
            "paragraph": paragraph]))).lines
    }

    func raggedness(_ lines: [LineResult], _ width: Double) -> Double {
        lines.dropLast().reduce(0) { $0 + (width - $1.width) * (width - $1.width) }
    }

    @Test func optimalAndPrettyLinesCoverTheTextWithinTheirWidths() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let count = Self.text.utf16.count
        for style in ["optimal", "pretty"] {
            for hyphenation in ["manual", "auto"] {
                let indents: [(String, JSONValue)] = [("hyphenation", .string(hyphenation)), ("firstLineIndent", 20),
                                                      ("headIndent", 6), ("tailIndent", 4)]
                let greedy = try lines(client, .object(indents))
                let laid = try lines(client, .object(indents + [("wrapStyle", .string(style))]))
                #expect(laid.first?.start == 0 && laid.last?.end == count)
                #expect(zip(laid, laid.dropFirst()).allSatisfy { $0.end == $1.start })
                #expect(laid.enumerated().allSatisfy { $1.width <= 220 - 10 - ($0 == 0 ? 20 : 0) + 0.001 }, "\(style) \(hyphenation)")
                #expect(laid.count <= greedy.count + 1)
            }
        }
        let optimal = try lines(client, ["wrapStyle": "optimal"], width: 200)
        #expect(raggedness(optimal, 200) < raggedness(try lines(client, [:], width: 200), 200))
        // Where there is nothing to choose, the lines are greedy's.
        #expect(try lines(client, ["wrapStyle": "optimal"], text: "One short line") == lines(client, [:], text: "One short line"))
        let forced = "First line\u{2028}second line\u{2028}third"
        #expect(try lines(client, ["wrapStyle": "optimal"], text: forced) == lines(client, [:], text: forced))
        // Around exclusions lines follow their slots, as greedy's do.
        func excluded(_ paragraph: JSONValue) throws -> [LineResult] {
            try #require(LayoutResult(json: client.result("layout", [
                "text": .string(Self.text), "width": 220, "font": ["family": "Noto Sans", "size": 16],
                "exclusions": [["x": 0, "y": 0, "width": 80, "height": 50]], "paragraph": paragraph]))).lines
        }
        #expect(try excluded(["wrapStyle": "optimal"]) == excluded([:]))
        let truncated = try lines(client, ["wrapStyle": "optimal", "maxLines": 2])
        #expect(truncated.count == 2)
        let bad = try client.call("layout", ["text": "x", "paragraph": ["wrapStyle": "best"]])
        #expect(bad["error"]?["data"]?["field"] == "paragraph.wrapStyle")
    }

    @Test func updatesKeepTheWrapStyle() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let params: JSONValue = ["text": .string(Self.text), "width": 220, "font": ["family": "Noto Sans", "size": 16],
                                 "language": "en", "paragraph": ["wrapStyle": "optimal"], "retain": true]
        let handle = try #require(client.result("layout", params)["handle"]?.stringValue)
        let narrower = try #require(LayoutResult(json: client.result("update", ["handle": .string(handle), "width": 180]))).lines
        #expect(narrower == (try lines(client, ["wrapStyle": "optimal"], width: 180)))
        #expect(narrower != (try lines(client, [:], width: 180)), "optimal, not greedy, at the new width")
        let edited = try #require(LayoutResult(json: client.result("update", [
            "handle": .string(handle), "edits": [["start": 0, "end": 10, "text": "Type"]]]))).lines
        #expect(edited == (try lines(client, ["wrapStyle": "optimal"], width: 180, text: "Type" + Self.text.dropFirst(10))))
    }
}
