import Foundation
import LayoutProtocol
import Testing

/// Hit-testing at the edges: beside a line that mixes directions, on a middle truncation
/// token; and streaming into a layout whose styles grow (attachments) re-lays out only the
/// paragraph that changed.
@Suite struct HitTestEdgeTests {
    /// A point beside a line goes to the line's edge on that side (left of an LTR line its
    /// start, right of it its end; mirrored for RTL lines), not to the outer run's edge.
    @Test(arguments: [
        ("abc אבג", 360.0, 200.0, 10.0, 7),
        ("אבג abc", 360.0, 1.0, 10.0, 7),
        ("אבג דהו Solaris זחט", 100.0, 150.0, 30.0, 8),
        ("abc def אבג דהו", 60.0, -5.0, 30.0, 8),
        ("abc אבג", 360.0, -3.0, 10.0, 0),
    ])
    func aPointBesideAMixedLineGoesToTheLinesEdge(text: String, width: Double, x: Double, y: Double, expected: Int) throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let layout = try client.result("layout", ["text": .string(text), "width": .number(width), "font": ["family": "Noto Sans", "size": 16], "retain": true])
        let handle = try #require(layout["handle"])
        let hit = try client.result("hitTest", ["handle": handle, "x": .number(x), "y": .number(y)])
        #expect(hit["index"]?.intValue == expected, "\(text) at (\(x), \(y)): \(JSONWriter.string(hit))")
        #expect(hit["character"] == .null, "beside the line no character is under the point")
        // The caret there is the line's edge nearest the point.
        let lineIndex = try #require(hit["line"]?.intValue)
        let line = try #require(layout["lines"]?.arrayValue?[lineIndex])
        let left = line["x"]?.doubleValue ?? 0, right = left + (line["width"]?.doubleValue ?? 0)
        let caret = try client.result("caret", ["handle": handle, "index": .number(Double(expected)),
                                                "affinity": hit["affinity"] ?? "downstream"])
        let caretX = try #require(caret["x"]?.doubleValue)
        #expect(abs(caretX - (x < left ? left : right)) < 0.01, "caret x \(caretX), line \(left)…\(right)")
    }

    @Test func aPointOnAMiddleTokenGoesToAnEdgeOfTheHiddenText() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "The quick brown fox jumps over the lazy dog, and then it runs into the forest to find its friends, who are waiting by the old oak tree."
        let layout = try client.result("layout", ["text": .string(text), "width": 200, "retain": true,
                                                  "paragraph": ["maxLines": 2, "truncation": ["mode": "middle", "token": "…展开"]]])
        let handle = try #require(layout["handle"])
        let token = try #require(regions(layout, kind: "truncation").first)
        let rect = try #require(token["rects"]?.arrayValue?.first)
        let hidden = try #require(layout["visible"]?.arrayValue)
        #expect(hidden.count == 2, "the middle is hidden: two visible ranges")
        let edges = [hidden[0]["end"]?.intValue, hidden[1]["start"]?.intValue].compactMap { $0 }
        let x = (rect["x"]?.doubleValue ?? 0) + (rect["width"]?.doubleValue ?? 0) / 2
        let y = (rect["y"]?.doubleValue ?? 0) + (rect["height"]?.doubleValue ?? 0) / 2
        for dx in [-0.25, 0.25] {
            let px = x + dx * (rect["width"]?.doubleValue ?? 0)
            let hit = try client.result("hitTest", ["handle": handle, "x": .number(px), "y": .number(y)])
            let index = try #require(hit["index"]?.intValue)
            #expect(edges.contains(index), "on the token: an edge of the hidden range \(edges), got \(index)")
            #expect(hit["character"] == .null)
            #expect(hit["region"]?["kind"] == "truncation")
        }
        let leftHalf = try client.result("hitTest", ["handle": handle, "x": .number(x - 1), "y": .number(y)])
        #expect(leftHalf["index"]?.intValue == edges.first, "left half: the end of the text before the token")
        let rightHalf = try client.result("hitTest", ["handle": handle, "x": .number(x + 1), "y": .number(y)])
        #expect(rightHalf["index"]?.intValue == edges.last, "right half: the start of the text after it")
    }

    /// Appending to the last paragraph of a layout with attachments lays out only that
    /// paragraph, also when a shortcode is completed over two appends.
    @Test func streamingWithAttachmentsReusesTheOtherParagraphs() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        var text = "First [laugh] paragraph.\nSecond one, [heart] here.\nThird"
        let first = try client.result("layout", ["text": .string(text), "width": 300, "attachments": true, "retain": true])
        let handle = try #require(first["handle"])
        for chunk in [" [smile] here", " and [smi", "le] done"] {
            let end = text.utf16.count
            let reply = try client.result("update", ["handle": handle,
                                                     "edits": [["start": .number(Double(end)), "end": .number(Double(end)), "text": .string(chunk)]]])
            text += chunk
            #expect(reply["diff"]?["reusedParagraphs"] == 2, "after \"\(chunk)\": \(JSONWriter.string(reply["diff"] ?? .null))")
            let fresh = try client.result("layout", ["text": .string(text), "width": 300, "attachments": true])
            #expect(reply["lines"] == fresh["lines"], "the same lines as a fresh layout")
            #expect(reply["regions"] == fresh["regions"], "the same regions as a fresh layout")
        }
        #expect(regions(try client.result("layout", ["text": .string(text), "width": 300, "attachments": true]), kind: "attachment").count == 4)
    }
}
