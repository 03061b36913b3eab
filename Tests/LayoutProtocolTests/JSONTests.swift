import Testing
@testable import LayoutProtocol

@Suite struct JSONParserTests {
    @Test func parsesEveryKind() throws {
        let v = try JSONParser.parse(#" {"a": [1, -2.5e3, true, false, null, "x\u00e9\n"], "b": {}} "#)
        #expect(v == ["a": [1, -2500, true, false, nil, "xé\n"], "b": .object([])])
    }

    @Test func decodesSurrogatePairEscapes() throws {
        #expect(try JSONParser.parse(#""\ud83d\ude00""#) == "😀")
    }

    @Test func loneSurrogateEscapesBecomeReplacementCharacters() throws {
        #expect(try JSONParser.parse(#""\ud83d""#) == "\u{FFFD}")
        #expect(try JSONParser.parse(#""a\ude00b""#) == "a\u{FFFD}b")
        #expect(try JSONParser.parse(#""\ud83d\u0041""#) == "\u{FFFD}A")
        #expect(try JSONParser.parse(#""\ud83d\ud83d\ude00""#) == "\u{FFFD}😀")
        #expect(try JSONParser.parse(#""\ud800\n""#) == "\u{FFFD}\n")
    }

    @Test(arguments: [
        (#""\ud83d\u00""#, "invalid \\u escape"),
        ("[", "unexpected end"),
        ("{", "expected a string key"),
        ("[1,]", "unexpected character"),
        ("01", "leading zero"),
        ("1e999", "out of range"),
        ("-", "invalid number"),
        ("nul", "invalid literal"),
        ("{\"a\" 1}", "expected ':'"),
        ("[1] 2", "after the JSON value"),
        ("\"a\u{01}\"", "control character"),
        (#""\x""#, "invalid escape"),
        ("NaN", "unexpected character"),
    ])
    func rejects(_ text: String, _ expected: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
        do { _ = try JSONParser.parse(text) } catch {
            #expect(error.message.contains(expected), "\(text): \(error)")
        }
    }

    /// Strings of every kind of character, each written raw or escaped (`\\uXXXX` in either
    /// case, surrogate pairs, the short escapes), in any mix: parsed back to the same string,
    /// which the writer writes back as JSON read as the same; cut short or with a raw control
    /// character inside, refused.
    @Test func escapedAndRawCharactersInAnyMix() throws {
        let pool: [Unicode.Scalar] = ["a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\u{01}", "\u{1F}", "\u{7F}", "é", "ß",
                                      "\u{7FF}", "\u{800}", "א", "中", "\u{FFFD}", "\u{FFFF}", "😀", "\u{10000}", "\u{10FFFF}"]
        var random = XorShift64(state: 0x9E37_79B9_7F4A_7C15)
        func pick(_ n: Int) -> Int { Int(random.next() >> 1) % n }
        func hex(_ v: UInt32, upper: Bool) -> String {
            let h = String(v, radix: 16, uppercase: upper)
            return String(repeating: "0", count: 4 - h.count) + h
        }
        for _ in 0..<3_000 {
            var text = "", json = "\""
            for _ in 0..<pick(24) {
                let c = pool[pick(pool.count)]
                text.unicodeScalars.append(c)
                let upper = pick(2) == 0
                let short: [Unicode.Scalar: String] = ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\t": "\\t"]
                if c.value < 0x20 || c == "\"" || c == "\\" || pick(2) == 0 {
                    if let s = short[c], pick(2) == 0 {
                        json += s
                    } else if c.value >= 0x10000 {
                        let v = c.value - 0x10000
                        json += "\\u" + hex(0xD800 + (v >> 10), upper: upper) + "\\u" + hex(0xDC00 + (v & 0x3FF), upper: upper)
                    } else {
                        json += "\\u" + hex(c.value, upper: upper)
                    }
                } else {
                    json.unicodeScalars.append(c)
                }
            }
            json += "\""
            #expect(try JSONParser.parse(json) == .string(text), "\(json)")
            // Written back (small strings and long ones, plain and escaped): read as the same.
            #expect(try JSONParser.parse(JSONWriter.serialize(.string(text))) == .string(text), "\(json)")
            // As a request's text, decoded straight to UTF-16: the same code units.
            let request = Array(#"{"params":{"text":"#.utf8) + Array(json.utf8) + Array("}}".utf8)
            let units = try JSONParser.parse(request, utf16Text: true)["params"]?["text"]
            #expect(units.map { if case .utf16(let u) = $0 { u == Array(text.utf16) } else { false } } == true, "\(json)")
            // Cut anywhere inside: never a value (unterminated, or a broken escape).
            let bytes = Array(json.utf8)
            let cut = 1 + pick(max(bytes.count - 1, 1))
            if cut < bytes.count {
                #expect(throws: JSONParseError.self, "\(json) cut at \(cut)") { try JSONParser.parse(Array(bytes[..<cut])) }
                let cutRequest = Array(#"{"params":{"text":"#.utf8) + Array(bytes[..<cut])
                #expect(throws: JSONParseError.self, "\(json) cut at \(cut)") { try JSONParser.parse(cutRequest, utf16Text: true) }
            }
            // A raw control character anywhere inside: refused.
            var withControl = bytes
            withControl.insert(0x0A, at: 1 + pick(bytes.count - 1))
            #expect(throws: JSONParseError.self, "\(json) with a raw newline") { try JSONParser.parse(withControl) }
            let controlRequest = Array(#"{"params":{"text":"#.utf8) + withControl + Array("}}".utf8)
            #expect(throws: JSONParseError.self, "\(json) with a raw newline") { try JSONParser.parse(controlRequest, utf16Text: true) }
        }
    }

    /// `utf16Text` reads the `text` of a `params` object, and only that, as UTF-16 code
    /// units; they read back as the same string.
    @Test func readsOnlyParamsTextAsUTF16() throws {
        let text = #"{"text":"a","params":{"text":"b\u00e9😀","x":{"text":"c"},"spans":[{"text":"d"}]},"x":{"params":{"text":7}}}"#
        let v = try JSONParser.parse(Array(text.utf8), utf16Text: true)
        guard case .utf16(let units)? = v["params"]?["text"] else { Issue.record("params.text: \(String(describing: v["params"]?["text"]))"); return }
        #expect(units == Array("bé😀".utf16))
        #expect(v["params"]?["text"] == "bé😀" && v["params"]?["text"]?.stringValue == "bé😀")
        #expect(v["text"].map { if case .string("a") = $0 { true } else { false } } == true)
        #expect(v["params"]?["x"]?["text"].map { if case .string("c") = $0 { true } else { false } } == true)
        #expect(v["x"]?["params"]?["text"] == 7)
        #expect(v == (try JSONParser.parse(text)), "the same values as parsed without it")
        #expect(JSONWriter.string(v) == JSONWriter.string(try JSONParser.parse(text)))
        // In a batch, each request's text.
        let batch = try JSONParser.parse(Array(#"[{"params":{"text":"x"}},{"params":{"text":"y"}}]"#.utf8), utf16Text: true)
        let texts: [[UInt16]]? = batch.arrayValue?.compactMap { if case .utf16(let u)? = $0["params"]?["text"] { u } else { nil } }
        #expect(texts == [[0x78], [0x79]])
    }

    /// Random bytes near the edges of UTF-8's ranges inside a request's text: decoded to
    /// UTF-16 when, and only when, the string reading accepts them, as the same text.
    @Test func utf16TextAgreesWithStringsOnRawBytes() {
        let interesting: [UInt8] = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                    0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF, 0x5C, 0x22]
        var random = XorShift64(state: 0x0DDB_1A5E_5BAD_5EED)
        func next() -> Int { Int(random.next() >> 1) }
        var disagreements: [[UInt8]] = []
        for _ in 0..<100_000 {
            let inner = (0..<(1 + next() % 8)).map { _ in interesting[next() % interesting.count] }
            let asString = try? JSONParser.parse([0x22] + inner + [0x22])
            let asUnits = try? JSONParser.parse(Array(#"{"params":{"text":""#.utf8) + inner + Array(#""}}"#.utf8), utf16Text: true)
            let units: [UInt16]? = if case .utf16(let u)? = asUnits?["params"]?["text"] { u } else { nil }
            if asString?.stringValue.map({ Array($0.utf16) }) != units, disagreements.count < 5 { disagreements.append(inner) }
        }
        #expect(disagreements.isEmpty, "\(disagreements)")
    }

    @Test func rejectsInvalidUTF8() {
        let bytes: [UInt8] = [0x22, 0xC3, 0x28, 0x22]
        #expect(throws: JSONParseError.self) { try JSONParser.parse(bytes) }
        let escaped: [UInt8] = Array(#""\n"#.utf8) + [0xFF, 0x22]
        #expect(throws: JSONParseError.self) { try JSONParser.parse(escaped) }
    }

    @Test func limitsNesting() throws {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
        _ = try JSONParser.parse(ok)
        // Far deeper than the limit still fails cleanly rather than overflowing the stack.
        let hostile = String(repeating: "[", count: 1_000_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(hostile) }
    }
}

@Suite struct JSONWriterTests {
    @Test func writesCompactlyAndRoundTrips() throws {
        let value: JSONValue = ["s": "a\"b\\c\n\u{01}é😀\u{2028}", "n": [0, -1, 1.5, 1e-7, 123456789012], "o": ["t": true, "z": nil]]
        let text = JSONWriter.string(value)
        #expect(!text.contains("\n"))
        #expect(text.contains(#""n":[0,-1,1.5,1e-07,123456789012]"#))
        #expect(try JSONParser.parse(text) == value)
    }

    @Test func writesNumbersShortestAndExact() throws {
        let cases: [(Double, String)] = [(0, "0"), (-3, "-3"), (0.001, "0.001"), (-0.5, "-0.5"), (123.456, "123.456"),
                                         (17.1, "17.1"), (1e15, "1000000000000000"), (0.1 + 0.2, "0.30000000000000004"),
                                         (-0.001, "-0.001"), (2.05, "2.05"), (1e-7, "1e-07"), (17.104, "17.104"),
                                         (-332.224, "-332.224"), (0.0005, "0.0005"), (1e12 + 0.5, "1000000000000.5")]
        for (value, text) in cases {
            #expect(JSONWriter.string(.number(value)) == text)
            #expect(try JSONParser.parse(text) == .number(value), "\(text) reads back as \(value)")
        }
    }

    /// Integers and thousandths of every length and sign (the fast paths) read back as the
    /// same number, with no trailing zeros; 9, 99, 999… and 10, 100, 1000… at every width.
    @Test func writesEveryLengthOfIntegerAndThousandths() throws {
        var values: [Double] = [-9_007_199_254_740_991, 9_007_199_254_740_991, 999_999_999_999.999, -999_999_999_999.999]
        var p: Int64 = 1
        for _ in 0..<16 {
            values += [Double(p), Double(p - 1), -Double(p), -Double(p - 1)]
            values += [Double(p) / 1000, Double(p - 1) / 1000, Double(p + 1) / 1000, -Double(p - 1) / 1000]
            p *= 10
        }
        var random = XorShift64(state: 0x0BAD_5EED_1234_5678)
        for _ in 0..<20_000 {
            let r = random.next()
            let magnitude = Double(r % 1_000_000_000_000) / [1, 10, 100, 1000][Int(r >> 60) % 4]
            values.append(r & 1 == 0 ? magnitude : -magnitude)
        }
        for value in values {
            let text = JSONWriter.string(.number(value))
            #expect(try JSONParser.parse(text) == .number(value), "\(text) reads back as \(value)")
            if text.contains(".") { #expect(!text.hasSuffix("0") && !text.hasSuffix("."), "\(text)") }
            #expect(!text.hasPrefix("0") || text == "0" || text.hasPrefix("0."), "\(text)")
        }
    }

    @Test func keepsMemberOrder() {
        #expect(JSONWriter.string(["b": 1, "a": 2]) == #"{"b":1,"a":2}"#)
    }
}

@Suite struct JSONRPCTests {
    @Test func decodesRequestsAndNotifications() throws {
        let r = try RPCRequest.decode(["jsonrpc": "2.0", "id": 7, "method": "layout", "params": ["text": "x"]]).get()
        #expect(r.id == .number(7) && r.method == "layout")
        let n = try RPCRequest.decode(["jsonrpc": "2.0", "method": "initialized"]).get()
        #expect(n.id == nil)
    }

    static let invalidRequests: [(JSONValue, String)] = [
        (JSONValue.number(1), "expected a JSON-RPC 2.0 request object"),
        (["jsonrpc": "1.0", "id": 1, "method": "x"], "`jsonrpc` must be \"2.0\""),
        (["jsonrpc": "2.0", "id": 1, "method": 5], "`method` must be a string"),
        (["jsonrpc": "2.0", "id": 1, "method": "x", "params": "p"], "`params` must be an object or an array"),
        (["jsonrpc": "2.0", "id": [1], "method": "x"], "`id` must be"),
    ]

    @Test(arguments: invalidRequests)
    func rejectsInvalidRequests(_ value: JSONValue, _ message: String) {
        guard case .failure(let failure) = RPCRequest.decode(value) else {
            Issue.record("accepted \(value)")
            return
        }
        #expect(failure.error.code == -32600)
        #expect(failure.error.message.contains(message))
    }

    @Test func invalidRequestKeepsItsReadableID() {
        guard case .failure(let failure) = RPCRequest.decode(["jsonrpc": "2.0", "id": "abc", "method": 1]) else {
            Issue.record("accepted")
            return
        }
        #expect(failure.id == .string("abc"))
    }
}

@Suite struct ParamsTests {
    func layoutError(_ params: JSONValue) -> RPCError? {
        do { _ = try LayoutParams(json: params); return nil } catch { return error }
    }

    @Test func requiresText() {
        #expect(layoutError([:])?.data == ["field": "text"])
        #expect(layoutError(["text": 5])?.message == "invalid params: `text` must be a string, got number")
    }

    @Test func validatesWidthAndFont() {
        #expect(layoutError(["text": "x", "width": -1])?.data == ["field": "width"])
        #expect(layoutError(["text": "x", "width": "wide"])?.data == ["field": "width"])
        #expect(layoutError(["text": "x", "font": ["size": 0]])?.data == ["field": "font.size"])
        #expect(layoutError(["text": "x", "font": ["size": -3]])?.data == ["field": "font.size"])
        #expect(layoutError(["text": "x", "font": ["size": 1e6]])?.data == ["field": "font.size"])
        #expect(layoutError(["text": "x", "font": ["weight": 1001]])?.data == ["field": "font.weight"])
        #expect(layoutError(["text": "x", "font": ["style": "slanted"]])?.data == ["field": "font.style"])
        #expect(layoutError(["text": "x", "font": "Noto Sans"])?.data == ["field": "font"])
        #expect(layoutError(["text": "x", "language": "en us!"])?.data == ["field": "language"])
        #expect(layoutError(["text": "x", "paragraph": ["direction": "up"]])?.data == ["field": "paragraph.direction"])
    }

    @Test func acceptsNullAsAbsent() throws {
        let p = try LayoutParams(json: ["text": "x", "width": nil, "font": ["family": "Noto Sans", "size": 12]])
        #expect(p.width == nil && p.font.size == 12 && p.font.family == "Noto Sans")
    }

    @Test func parsesFontShorthand() {
        #expect(FontSpec(parsing: "Noto Sans 16") == FontSpec(family: "Noto Sans", size: 16))
        #expect(FontSpec(parsing: "DejaVu Serif Bold Italic 12.5") == FontSpec(family: "DejaVu Serif", size: 12.5, weight: 700, style: "italic"))
        #expect(FontSpec(parsing: "14") == FontSpec(size: 14))
    }
}

/// The parser validates UTF-8 itself (`validatedString`); it must accept and reject exactly
/// what the standard library does.
@Suite struct UTF8ValidationTests {
    func agree(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { validatedString($0) == String(validating: $0, as: UTF8.self) }
    }

    @Test func everyOneAndTwoByteSequence() {
        var disagreements = 0
        for a in 0...255 {
            if !agree([UInt8(a)]) { disagreements += 1 }
            for b in 0...255 where !agree([UInt8(a), UInt8(b)]) { disagreements += 1 }
        }
        #expect(disagreements == 0)
    }

    /// 300,000 random sequences of 1 to 8 bytes, drawn mostly from lead and continuation
    /// bytes at the edges of the valid ranges (E0, ED, F0, F4, 80, 9F, A0, BF, C0, C2, F5…).
    @Test func randomSequencesNearTheEdges() {
        let interesting: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                    0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        var random = XorShift64(state: 0x1234_5678_9ABC_DEF1)
        func next() -> Int { Int(random.next() >> 1) }
        var disagreements: [[UInt8]] = []
        for _ in 0..<300_000 {
            let bytes = (0..<(1 + next() % 8)).map { _ in next() % 4 == 0 ? UInt8(next() % 256) : interesting[next() % interesting.count] }
            if !agree(bytes), disagreements.count < 5 { disagreements.append(bytes) }
        }
        #expect(disagreements.isEmpty, "\(disagreements)")
    }
}

/// Results go out through `LayoutResult.wireJSON`, which writes the lines straight to bytes;
/// the text must be exactly `json`'s, for every kind of line, run and glyph.
@Suite struct WireJSONTests {
    @Test func linesWrittenDirectlyAreTheValuesWritten() throws {
        var random = XorShift64(state: 0xDEAD_BEEF_CAFE_F00D)
        func next(_ n: Int) -> Int { Int(random.next() >> 1) % n }
        func number() -> Double {
            [0, 1, -3, 12.5, 17.104, -0.001, 1234567.891, 1e15, 3.14159265358979, 1.0 / 3][next(10)]
        }
        for trial in 0..<200 {
            let lines = (0..<next(6)).map { _ in
                var line = LineResult(start: next(1000), end: next(1000), x: number(), y: number(), width: number(),
                                      height: number(), baseline: number(), ascent: number(), descent: number(),
                                      hyphenated: next(3) == 0)
                if next(2) == 0 {
                    line.runs = (0..<next(4)).map { _ in
                        RunResult(start: next(100), end: next(100), font: next(3), style: next(3), token: next(5) == 0,
                                  level: next(3), x: number(), width: number(),
                                  glyphs: next(2) == 0 ? nil : (0..<next(5)).map { _ in
                                      GlyphResult(id: next(70000), cluster: next(100), advance: number(), dx: number(), dy: number())
                                  })
                    }
                }
                if next(4) == 0 { line.decorations = [["kind": "rect", "x": .number(number()), "label": "a\"b\n"]] }
                return line
            }
            var result = LayoutResult(width: number(), height: number(), truncated: next(2) == 0, lines: lines,
                                      fonts: [], handle: next(2) == 0 ? "h\(trial)" : nil, fontFingerprint: "f")
            if next(3) == 0 { result.warnings = ["plugin x failed"] }
            let expected = JSONWriter.serialize(result.json)
            #expect(JSONWriter.serialize(result.wireJSON) == expected, "trial \(trial)")
            #expect(try JSONParser.parse(JSONWriter.serialize(result.wireJSON)) == result.json)
        }
    }

    /// `measure`'s result is written straight to bytes too: exactly `json`'s text.
    @Test func measureWrittenDirectlyIsTheValueWritten() throws {
        for (width, height) in [(0.0, 0.0), (90.096, 21.792), (-0.001, 1e15), (1.0 / 3, 1234567.891)] {
            for (lines, truncated) in [(0, false), (1, true), (12, false)] {
                let result = MeasureResult(width: width, height: height, lineCount: lines, truncated: truncated,
                                           fontFingerprint: "5c7842f0\"\u{1}")
                #expect(JSONWriter.serialize(result.wireJSON) == JSONWriter.serialize(result.json))
                #expect(try JSONParser.parse(JSONWriter.serialize(result.wireJSON)) == result.json)
            }
        }
    }
}

/// A seeded xorshift64 generator: the same pseudo-random test inputs on every run.
struct XorShift64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return state
    }
}
