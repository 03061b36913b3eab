import TestSupport
import Testing
@testable import LayoutEngine
#if canImport(Glibc)
import Glibc
#endif

/// Random requests over real multilingual text (seeded, so every run is the same): every
/// combination of width, spans, paragraph style, exclusions and truncation must lay out
/// without a crash and keep the layout's invariants.
@Suite struct PropertyTests {
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
        mutating func double(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + Double(next() % 10_000) / 10_000 * (range.upperBound - range.lowerBound)
        }
        mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    }

    static let samples: [String] = [
        "Hello, world! This is a test of the layout engine with several words.",
        "مرحبا بالعالم، هذا اختبار للتخطيط مع كلمات كثيرة ‎(123)‎ وأرقام",
        "שלום עולם abc 123 עוד מילים",
        "你好世界，这是一个测试。日本語のテキストも混ぜます。",
        "नमस्ते दुनिया यह एक परीक्षण है",
        "สวัสดีครับ นี่คือการทดสอบ",
        "emoji 👩‍👩‍👧‍👦 and flags 🇫🇷🇯🇵 and keycaps 1️⃣ done",
        "tabs\tin\tcolumns\t1.25\n\nempty paragraphs\u{2028}line separator",
        "soft\u{AD}hyphen\u{AD}ated words every\u{AD}where",
        "",
    ]

    @Test(arguments: 0..<6)
    func randomRequestsKeepTheInvariants(seed: Int) throws {
        var g = Generator(state: UInt64(seed) &* 0x9E3779B97F4A7C15 &+ 1)
        for _ in 0..<150 {
            let parts = (0..<g.int(1...3)).map { _ in Self.samples[g.int(0...Self.samples.count - 1)] }
            let text = Array(parts.joined(separator: g.chance(50) ? "\n" : " ").utf16)
            var request = LayoutRequest(text: text, width: g.chance(85) ? g.double(0...400) : nil,
                                        font: FontDescriptor(family: "Noto Sans", size: g.double(6...30)))
            request.detail = [.lines, .runs, .glyphs][g.int(0...2)]
            request.keepsGeometry = g.chance(50)
            request.styles.append(SpanStyle(font: FontDescriptor(family: "DejaVu Sans", size: g.double(8...24), weight: 700),
                                            letterSpacing: g.double(-1...3), baselineOffset: g.double(-4...4)))
            request.styles.append(SpanStyle(font: FontDescriptor(family: "Noto Sans", size: 12), baselineOffset: g.double(-3...3),
                                            attachment: Attachment(width: g.double(0...120), ascent: g.double(0...30), descent: g.double(0...8))))
            if !text.isEmpty, g.chance(60) {
                var starts = Set<Int>()
                for _ in 0..<g.int(1...5) { starts.insert(g.int(0...text.count)) }
                request.styleRuns = [StyleRun(start: 0, style: 0)] + starts.sorted().filter { $0 > 0 }.enumerated().map {
                    StyleRun(start: $0.element, style: [1, 0, 2][$0.offset % 3])
                }
            }
            var paragraph = ParagraphStyle()
            paragraph.align = TextAlignment.allCases[g.int(0...TextAlignment.allCases.count - 1)]
            paragraph.wrap = g.chance(80) ? .word : (g.chance(50) ? .char : .none)
            paragraph.direction = ParagraphDirection.allCases[g.int(0...2)]
            paragraph.lineSpacing = g.double(0...5)
            paragraph.headIndent = g.double(0...30)
            paragraph.firstLineIndent = g.double(-10...30)
            paragraph.tailIndent = g.double(0...30)
            if g.chance(30) { paragraph.lineHeightMultiple = g.double(0.5...2) }
            if g.chance(30) { paragraph.tabStops = [TabStop(location: 60, alignment: .right), TabStop(location: 120, alignment: .decimal)] }
            request.paragraph = paragraph
            request.insets = EdgeInsets(top: g.double(0...10), left: g.double(0...10), bottom: g.double(0...10), right: g.double(0...10))
            if g.chance(30) {
                request.exclusions = [Rect(x: g.double(-20...300), y: g.double(-10...100), width: g.double(0...150), height: g.double(0...80))]
            }
            if g.chance(50) {
                request.maxLines = g.int(1...4)
                request.truncation = Truncation(mode: Truncation.Mode.allCases[g.int(0...3)],
                                                token: Array((g.chance(50) ? "…" : "… more").utf16), tokenStyle: g.int(0...1))
            }
            let label = "seed \(seed): \(request.width.map { String($0) } ?? "nil") \(paragraph.align) \(request.truncation.mode) \(request.maxLines ?? 0)"
            let layout = try sharedEngine.layout(request)
            #expect(!layout.lines.isEmpty, "\(label)")
            #expect(layout.lines.allSatisfy { $0.start <= $0.end && $0.end <= text.count }, "\(label)")
            #expect(layout.lines.allSatisfy { $0.height > 0 && $0.baseline >= $0.y && $0.baseline <= $0.y + $0.height + 1e-9 }, "\(label)")
            for (a, b) in zip(layout.lines, layout.lines.dropFirst()) {
                #expect(b.y >= a.y - 1e-9, "lines go down: \(label)")
                #expect(a.end <= b.start || layout.truncated, "lines in text order: \(label)")
            }
            if let maxLines = request.maxLines { #expect(layout.lines.count <= maxLines, "\(label)") }
            if layout.truncated {
                #expect(layout.visibleRanges.allSatisfy { $0.upperBound <= text.count }, "\(label)")
                if let hidden = layout.hiddenRange { #expect(hidden.lowerBound <= hidden.upperBound && hidden.upperBound <= text.count) }
            } else {
                #expect(layout.lines.first?.start == 0 && layout.lines.last?.end == text.count, "covers the text: \(label)")
            }
            if request.keepsGeometry || request.detail >= .runs, text.count > 2 {
                for rect in layout.rects(0, text.count) { #expect(rect.width >= -1e-6 && rect.height > 0, "\(label)") }
            }
        }
    }
}
