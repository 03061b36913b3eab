import TestSupport
import Testing
@testable import LayoutEngine

/// `measurePlainParagraph`, the size of one plain paragraph without its lines built, gives
/// exactly the size and line count of a full layout, and takes only the requests it can.
@Suite struct PlainParagraphMeasureTests {
    /// Messages of 1–80 characters cut at seeded places from every corpus paragraph (mid-word
    /// as often as not), with the hand-picked short messages beside them (tabs as spaces).
    static func messages() throws -> [String] {
        var rng = SeededGenerator(state: 36)
        var cut = ShortTextFastPathTests.messages.filter { !$0.isEmpty }.map { $0.replacingOccurrences(of: "\t", with: " ") }
        for (_, text) in try ShapeCacheTests.corpus() {
            let characters = Array(text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\t", with: " "))
            for _ in 0..<3 {
                let length = Int.random(in: 1...min(80, characters.count), using: &rng)
                let start = Int.random(in: 0...(characters.count - length), using: &rng)
                cut.append(String(characters[start..<(start + length)]))
            }
        }
        return cut
    }

    func request(_ text: String, width: Double?) -> LayoutRequest {
        LayoutRequest(text: utf16(text), width: width, font: FontDescriptor(family: "Noto Sans", size: 16))
    }

    /// What the size must equal: a full layout's, to the last bit.
    func difference(_ r: LayoutRequest) throws -> String? {
        guard let size = try sharedEngine.measurePlainParagraph(r).size else { return "not measured plainly" }
        let full = try sharedEngine.layout(r)
        guard size == MeasuredSize(width: full.width, height: full.height, lineCount: full.lines.count) else {
            return "\(size) vs \(full.width)×\(full.height), \(full.lines.count) lines"
        }
        return nil
    }

    @Test func sizesAreAFullLayouts() throws {
        var failures: [String] = []
        var multiLine = 0
        for text in try Self.messages() {
            for width in [nil, 280, 120, 40, 9, 0] as [Double?] {
                for direction in ParagraphDirection.allCases {
                    var r = request(text, width: width)
                    r.paragraph.direction = direction
                    if let d = try difference(r), failures.count < 5 { failures.append("\(text) at \(width ?? -1) \(direction): \(d)") }
                    if try sharedEngine.measurePlainParagraph(r).size?.lineCount ?? 0 > 1 { multiLine += 1 }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(multiLine > 1000, "the messages should wrap at the narrow widths")
    }

    /// Line height styles, alignments, wrap modes, letter spacing, a baseline offset, a
    /// language and another font, each measured as a full layout lays it out.
    @Test func paragraphStylesAndFontsAreMeasuredAsLaidOut() throws {
        let styles: [(String, (inout LayoutRequest) -> Void)] = [
            ("line height ×1.5", { $0.paragraph.lineHeightMultiple = 1.5 }),
            ("minimum 30", { $0.paragraph.minimumLineHeight = 30 }),
            ("maximum 12", { $0.paragraph.maximumLineHeight = 12 }),
            ("center", { $0.paragraph.align = .center }),
            ("end", { $0.paragraph.align = .end }),
            ("char wrap", { $0.paragraph.wrap = .char }),
            ("no wrap", { $0.paragraph.wrap = .none }),
            ("hyphenation none", { $0.paragraph.hyphenation = .none }),
            ("letter spacing", { $0.styles[0].letterSpacing = 1.25 }),
            ("baseline offset", { $0.styles[0].baselineOffset = 3 }),
            ("Japanese", { $0.language = "ja" }),
            ("DejaVu Serif bold 13", { $0.font = FontDescriptor(family: "DejaVu Serif", size: 13, weight: 700) }),
        ]
        var failures: [String] = []
        for text in try Self.messages().prefix(150) {
            for (name, apply) in styles {
                for width in [200, 33] as [Double] {
                    var r = request(text, width: width)
                    apply(&r)
                    if let d = try difference(r), failures.count < 5 { failures.append("\(text), \(name) at \(width): \(d)") }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    /// Everything a full layout does that this path does not is left to it: nil.
    @Test func otherRequestsAreLeftToTheFullLayout() throws {
        let others: [(String, LayoutRequest)] = [
            ("empty", request("", width: 100)),
            ("two paragraphs", request("one\ntwo", width: 100)),
            ("CR", request("one\rtwo", width: 100)),
            ("paragraph separator", request("one\u{2029}two", width: 100)),
            ("line separator", request("one\u{2028}two", width: 100)),
            ("tab", request("one\ttwo", width: 100)),
            ("soft hyphen", request("hy\u{AD}phen", width: 100)),
            ("form feed", request("one\u{0C}two", width: 100)),
        ] + [
            ("two styles", { var r = $0; r.styles.append(SpanStyle(font: r.font)); r.styleRuns.append(StyleRun(start: 1, style: 1)); return r }),
            ("a line limit", { var r = $0; r.maxLines = 1; return r }),
            ("insets", { var r = $0; r.insets = EdgeInsets(top: 1); return r }),
            ("an exclusion", { var r = $0; r.exclusions = [Rect(x: 0, y: 0, width: 10, height: 10)]; return r }),
            ("justified", { var r = $0; r.paragraph.align = .justify; return r }),
            ("line spacing", { var r = $0; r.paragraph.lineSpacing = 2; return r }),
            ("an indent", { var r = $0; r.paragraph.firstLineIndent = 8; return r }),
            ("optimal", { var r = $0; r.paragraph.wrapStyle = .optimal; return r }),
            ("balanced", { var r = $0; r.paragraph.wrapStyle = .balance; return r }),
            ("auto hyphenation", { var r = $0; r.paragraph.hyphenation = .auto; return r }),
            ("runs", { var r = $0; r.detail = .runs; return r }),
            ("kept geometry", { var r = $0; r.keepsGeometry = true; return r }),
            ("kept for reuse", { var r = $0; r.keepsReusable = true; return r }),
        ].map { ($0.0, $0.1(request("plain text", width: 100))) }
        for (name, r) in others {
            #expect(try sharedEngine.measurePlainParagraph(r).size == nil, "\(name)")
        }
        #expect(try sharedEngine.measurePlainParagraph(request("plain text", width: 100)).size != nil)
    }

    /// A size measured before is kept and found again: the same size, counted as a hit;
    /// another width, style, language or direction is another entry; long texts are not kept,
    /// the entries are bounded, and a cache of 0 keeps nothing.
    @Test func measuredSizesAreKeptAndFoundAgain() throws {
        let engine = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCacheEntries: 1000, measureCacheEntries: 16)
        let cache = engine.measuredParagraphs
        let message = request("See you at the café at 5 — ok? 👍", width: 90)
        let first = try engine.measurePlainParagraph(message).size
        #expect(cache.lookupCounts == CacheLookups(hits: 0, misses: 1) && cache.count == 1)
        #expect(try engine.measurePlainParagraph(message).size == first)
        #expect(cache.lookupCounts == CacheLookups(hits: 1, misses: 1))
        var others = [request("See you at the café at 5 — ok? 👍", width: 91)]
        for change in [{ (r: inout LayoutRequest) in r.font.size = 17 }, { $0.language = "fr" },
                       { $0.paragraph.direction = .rtl }, { $0.paragraph.lineHeightMultiple = 2 }] {
            var r = message
            change(&r)
            others.append(r)
        }
        for r in others {
            let size = try engine.measurePlainParagraph(r).size
            let full = try engine.layout(r)
            #expect(size == MeasuredSize(width: full.width, height: full.height, lineCount: full.lines.count))
        }
        #expect(cache.lookupCounts == CacheLookups(hits: 1, misses: 6) && cache.count == 6)
        let long = request(String(repeating: "long text ", count: 26), width: 90)
        _ = try engine.measurePlainParagraph(long).size
        _ = try engine.measurePlainParagraph(long).size
        #expect(cache.count == 6, "a text over \(MeasuredParagraphs.maxTextLength) units is not kept")
        #expect(cache.capacity == 64, "16 rounded up to one set of 8 slots in each of 8 shards")
        for i in 0..<200 { _ = try engine.measurePlainParagraph(request("message \(i)", width: 90)) }
        #expect(cache.count <= cache.capacity)
        // Sizes kept for many messages are still each message's own.
        for i in stride(from: 0, to: 200, by: 7) {
            let r = request("message \(i)", width: 90)
            let full = try engine.layout(r)
            #expect(try engine.measurePlainParagraph(r).size == MeasuredSize(width: full.width, height: full.height, lineCount: full.lines.count))
        }
        let off = TextLayoutEngine(fonts: sharedEngine.fonts, shapeCacheEntries: 1000, measureCacheEntries: 0)
        #expect(try off.measurePlainParagraph(message).size == first)
        #expect(off.measuredParagraphs.count == 0 && off.measuredParagraphs.lookupCounts == CacheLookups(hits: 0, misses: 0))
    }
}
