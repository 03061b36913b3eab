import Foundation
import LayoutProtocol
import Testing

/// A span's `language` through the socket: with `hyphenation: auto`, the words it covers are
/// hyphenated with that language's dictionary, the rest with the request's; a language
/// without a dictionary hyphenates nothing and says so; a bad tag names its span.
@Suite struct SpanLanguageTests {
    static let font: JSONValue = ["family": "Noto Sans", "size": 16]
    static let word = "Geschwindigkeitsbegrenzung"
    static let text = "We saw a Geschwindigkeitsbegrenzung sign"
    static let wordStart = 9

    /// The hyphenated lines' ends inside the word, relative to its start, over widths from
    /// 30 to 250 points; and every response's warnings.
    func breaksInWord(_ client: Client, _ params: [(String, JSONValue)]) throws -> (ends: Set<Int>, warnings: Set<String>) {
        var ends: Set<Int> = [], warnings: Set<String> = []
        for width in stride(from: 30.0, through: 250, by: 2) {
            let raw = try client.result("layout", .object(params + [("width", .number(width)), ("font", Self.font)]))
            let result = try #require(LayoutResult(json: raw))
            for line in result.lines where line.hyphenated && line.end > Self.wordStart && line.end < Self.wordStart + Self.word.utf16.count {
                ends.insert(line.end - Self.wordStart)
            }
            for w in raw["warnings"]?.arrayValue ?? [] { if let s = w.stringValue { warnings.insert(s) } }
        }
        return (ends, warnings)
    }

    func span(_ language: String) -> JSONValue {
        ["start": .number(Double(Self.wordStart)), "end": .number(Double(Self.wordStart + Self.word.utf16.count)),
         "language": .string(language)]
    }

    @Test func aSpansWordsTakeItsLanguagesDictionary() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let auto: (String, JSONValue) = ("paragraph", ["hyphenation": "auto"])
        // The word alone, in German and in English: the dictionaries differ on it.
        func alone(_ language: String) throws -> Set<Int> {
            var ends: Set<Int> = []
            for width in stride(from: 30.0, through: 250, by: 2) {
                let result = try #require(LayoutResult(json: client.result("layout", [
                    "text": .string(Self.word), "width": .number(width), "font": Self.font, "language": .string(language),
                    "paragraph": ["hyphenation": "auto"]])))
                for line in result.lines where line.hyphenated { ends.insert(line.end) }
            }
            return ends
        }
        let german = try alone("de"), english = try alone("en-US")
        #expect(!german.isEmpty && !german.subtracting(english).isEmpty, "German \(german), English \(english)")

        let withSpan = try breaksInWord(client, [("text", .string(Self.text)), ("language", "en-US"), auto,
                                                 ("spans", [span("de")])])
        #expect(!withSpan.ends.isEmpty && withSpan.ends.isSubset(of: german), "\(withSpan.ends) vs German \(german)")
        #expect(!withSpan.ends.subtracting(english).isEmpty, "German points the English dictionary does not give")
        #expect(withSpan.warnings.isEmpty)
        let withoutSpan = try breaksInWord(client, [("text", .string(Self.text)), ("language", "en-US"), auto])
        #expect(withoutSpan.ends.isSubset(of: english), "\(withoutSpan.ends) vs English \(english)")

        // No request language: the span's words are hyphenated, the rest not, and it says so.
        let spanOnly = try breaksInWord(client, [("text", .string(Self.text)), auto, ("spans", [span("de")])])
        #expect(!spanOnly.ends.isEmpty && spanOnly.ends.isSubset(of: german))
        #expect(spanOnly.warnings.contains { $0.contains("outside the spans that name one") })

        // A language without a dictionary: its words are not hyphenated, and it says so.
        let unknown = try breaksInWord(client, [("text", .string(Self.text)), ("language", "en-US"), auto,
                                                ("spans", [span("xx")])])
        #expect(unknown.ends.isEmpty)
        #expect(unknown.warnings.contains { $0.contains("no hyphenation dictionary for language \"xx\"") })
    }

    @Test func aBadSpanLanguageNamesItsSpan() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let bad = try client.call("layout", ["text": "Hallo Welt", "spans": [["start": 0, "end": 5, "language": "de DE"]]])
        #expect(bad["error"]?["code"] == -32602)
        #expect(bad["error"]?["data"]?["field"] == "spans[0].language")
        // The styles a layout with runs reports carry it.
        let runs = try client.result("layout", ["text": "Hallo Welt", "detail": "runs",
                                                "spans": [["start": 0, "end": 5, "language": "de"]]])
        #expect(runs["styles"]?.arrayValue?.contains { $0["language"] == "de" } == true, "\(runs["styles"] ?? .null)")
    }
}
