import LayoutProtocol
import Testing

/// Offsets of a retained multi-paragraph document in each encoding a session may choose,
/// through the real daemon: at every paragraph boundary the lines start where the text's
/// length in that encoding says, a caret there sits on the paragraph's line, and an edit
/// there gives what a fresh layout of the edited text gives.
@Suite struct DocumentOffsetTests {
    static let paragraphs = ["Plain ASCII words.", "Accents: é, ü, ñ.", "漢字とかな", "Emoji 🙂🎉 here", "שלום עולם",
                             "x\u{301} combining", "", "Last one 🙂"]

    func length(_ text: String, _ encoding: String) -> Int {
        switch encoding {
        case "utf-8": text.utf8.count
        case "utf-32": text.unicodeScalars.count
        default: text.utf16.count
        }
    }

    @Test(arguments: ["utf-8", "utf-16", "utf-32"])
    func offsetsConvertExactlyAtEveryParagraphBoundary(encoding: String) throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        #expect(try client.result("initialize", ["offsetEncodings": [.string(encoding)]])["offsetEncoding"]?.stringValue == encoding)
        var paragraphs = (0..<40).map { Self.paragraphs[$0 % Self.paragraphs.count] }
        let text = paragraphs.joined(separator: "\n")
        let result = try client.result("layout", ["text": .string(text), "retain": true])
        let handle = try #require(result["handle"])
        let lines = try #require(result["lines"]?.arrayValue)
        #expect(lines.count == paragraphs.count)
        var start = 0
        for (i, paragraph) in paragraphs.enumerated() {
            #expect(lines[i]["start"]?.intValue == start, "paragraph \(i) in \(encoding)")
            let caret = try client.result("caret", ["handle": handle, "index": .number(Double(start))])
            #expect(caret["y"] == lines[i]["y"], "caret at paragraph \(i) in \(encoding)")
            start += length(paragraph, encoding) + 1
        }
        #expect(lines.last?["end"]?.intValue == length(text, encoding))
        for i in stride(from: 3, to: paragraphs.count, by: 7) {
            let at = paragraphs[..<i].reduce(0) { $0 + length($1, encoding) + 1 }
            paragraphs[i] = "🙂é" + paragraphs[i]
            let updated = try client.result("update", ["handle": handle, "edits": [["start": .number(Double(at)), "end": .number(Double(at)), "text": "🙂é"]]])
            let fresh = try client.result("layout", ["text": .string(paragraphs.joined(separator: "\n")), "retain": true])
            _ = try client.result("release", ["handle": fresh["handle"] ?? .null])
            #expect(updated["lines"] == fresh["lines"], "edit at paragraph \(i) in \(encoding)")
            let inserted = try #require(updated["diff"]?["inserted"]?.arrayValue?.first)
            #expect(inserted["start"]?.intValue == at && inserted["end"]?.intValue == at + length("🙂é", encoding))
        }
    }
}
