import TestSupport
import Testing
@testable import LayoutEngine

/// A stand-in for a client's span attributes: a color and a bold flag (each nil: not set),
/// and whether the span is an inline object.
struct TestAttributes: SpanAttributeSet, Equatable {
    var color: String?
    var bold: Bool?
    var object = false

    init() {}
    init(color: String? = nil, bold: Bool? = nil, object: Bool = false) {
        self.color = color
        self.bold = bold
        self.object = object
    }

    func applied(over base: TestAttributes) -> TestAttributes {
        var result = base
        if let color { result.color = color }
        if let bold { result.bold = bold }
        if object { result.object = true }
        return result
    }

    var identity: String { "\(color ?? "-")/\(bold.map(String.init) ?? "-")/\(object)" }
    var isInlineObject: Bool { object }
}

@Suite struct AttributedTextTests {
    typealias Span = AttributedSpan<TestAttributes>

    @Test func spanEdgesSnapOutwardToGraphemeClusters() throws {
        // "a", then e + U+0301 (one cluster, units 1..<3), then a family emoji ZWJ sequence
        // (units 3..<11), then "b".
        let text = utf16("ae\u{301}\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}b")
        var attributed = AttributedText<TestAttributes>(text: text, maxLength: 1000)
        #expect(try attributed.snapped(2, 2) == (1, 3))      // inside the accented e
        #expect(try attributed.snapped(0, 2) == (0, 3))
        #expect(try attributed.snapped(5, 6) == (3, 11))     // inside the ZWJ sequence
        #expect(try attributed.snapped(11, 12) == (11, 12))  // already on boundaries
        #expect(attributed.graphemes == [0, 1, 3, 11, 12])
    }

    @Test func snappingPastTheLengthLimitFails() {
        var attributed = AttributedText<TestAttributes>(text: utf16("too long"), maxLength: 4)
        #expect(throws: EngineError.textTooLong(length: 8, limit: 4)) { try attributed.snapped(0, 1) }
    }

    @Test func laterSpansWinAndEqualResultsShareAStyle() throws {
        let spans = [Span(start: 0, end: 6, attributes: TestAttributes(color: "red")),
                     Span(start: 3, end: 9, attributes: TestAttributes(color: "blue", bold: true)),
                     Span(start: 12, end: 15, attributes: TestAttributes(color: "red"))]
        let composed = try ComposedStyles(spans, maxOverlapping: 8)
        #expect(composed.styles == [TestAttributes(), TestAttributes(color: "red"), TestAttributes(color: "blue", bold: true)])
        #expect(composed.styleRuns == [StyleRun(start: 0, style: 1), StyleRun(start: 3, style: 2), StyleRun(start: 9, style: 0),
                                       StyleRun(start: 12, style: 1), StyleRun(start: 15, style: 0)])
    }

    @Test func composesOverWhatIsUnderneath() throws {
        let spans = [Span(start: 0, end: 10, attributes: TestAttributes(bold: true)),
                     Span(start: 2, end: 4, attributes: TestAttributes(color: "green"))]
        let composed = try ComposedStyles(spans, maxOverlapping: 8)
        #expect(composed.styles[composed.styleRuns[1].style] == TestAttributes(color: "green", bold: true))
        #expect(composed.styleRuns.map(\.start) == [0, 2, 4, 10])
    }

    @Test func inlineObjectsAreNeverMerged() throws {
        let object = TestAttributes(object: true)
        let composed = try ComposedStyles([Span(start: 0, end: 1, attributes: object), Span(start: 1, end: 2, attributes: object)],
                                          maxOverlapping: 8)
        #expect(composed.styleRuns == [StyleRun(start: 0, style: 1), StyleRun(start: 1, style: 1), StyleRun(start: 2, style: 0)])
        let plain = try ComposedStyles([Span(start: 0, end: 1, attributes: TestAttributes(bold: true)),
                                        Span(start: 1, end: 2, attributes: TestAttributes(bold: true))], maxOverlapping: 8)
        #expect(plain.styleRuns == [StyleRun(start: 0, style: 1), StyleRun(start: 2, style: 0)])
    }

    @Test func tooManySpansOverOnePlaceFail() {
        let spans = (0..<3).map { _ in Span(start: 1, end: 5, attributes: TestAttributes(bold: true)) }
        #expect(throws: AttributedTextError.tooManyOverlappingSpans(offset: 1, limit: 2)) {
            try ComposedStyles(spans, maxOverlapping: 2)
        }
    }

    @Test func styleNumbersAreSharedWithTheSpans() throws {
        var composed = try ComposedStyles([Span(start: 0, end: 2, attributes: TestAttributes(color: "red"))], maxOverlapping: 8)
        #expect(composed.styleNumber(TestAttributes(color: "red")) == 1)
        #expect(composed.styleNumber(TestAttributes()) == 0)
        #expect(composed.styleNumber(TestAttributes(bold: false)) == 2)
        #expect(composed.styles.count == 3)
    }

    @Test func overridesComposeOverTheBaseFont() {
        var overrides = StyleOverrides()
        overrides.size = 20
        overrides.weight = 700
        overrides.letterSpacing = 1.5
        let base = FontDescriptor(family: "Noto Sans", size: 16, weight: 400)
        let style = SpanStyle(overrides, over: base)
        #expect(style.font == FontDescriptor(family: "Noto Sans", size: 20, weight: 700))
        #expect(style.letterSpacing == 1.5 && style.baselineOffset == 0 && style.attachment == nil)
        #expect(SpanStyle(StyleOverrides(), over: base) == SpanStyle(font: base))
    }
}

@Suite struct RegionGeometryTests {
    @Test func aRegionHasOneRectPerLineFragment() throws {
        var request = LayoutRequest(text: utf16("one two three four five six"), width: 60,
                                    font: FontDescriptor(family: "Noto Sans", size: 16))
        request.keepsGeometry = true
        let layout = try sharedEngine.layout(request)
        #expect(layout.lines.count > 2)
        let rects = layout.regionRects(0, 27)
        #expect(rects.count == layout.lineCount(0, 27))
        for (rect, line) in zip(rects, layout.lines) {
            #expect(rect.y == line.y && rect.height == line.height && rect.width > 0)
        }
        #expect(layout.regionRects(4, 7).count == 1)
    }

    @Test func anInlineObjectsRegionIsItsOwnBox() throws {
        let object = Attachment(width: 30, ascent: 20, descent: 5)
        var request = LayoutRequest(text: utf16("a\u{FFFC}b"), width: 300, font: FontDescriptor(family: "Noto Sans", size: 16))
        request.styles.append(SpanStyle(font: request.font, baselineOffset: 2, attachment: object))
        request.styleRuns = [StyleRun(start: 0, style: 0), StyleRun(start: 1, style: 1), StyleRun(start: 2, style: 0)]
        request.keepsGeometry = true
        let layout = try sharedEngine.layout(request)
        let style = request.style(at: 1)
        #expect(style.attachment == object)
        let rects = layout.regionRects(1, 2, objectStyle: style)
        let line = try #require(layout.lines.first)
        #expect(rects == [Rect(x: rects[0].x, y: line.baseline - 2 - 20, width: 30, height: 25)])
        // Without the object's style, the region is the text's rect on the line.
        #expect(layout.regionRects(1, 2) == layout.rects(1, 2))
        #expect(layout.rects(1, 2).first?.height == line.height)
    }
}

@Suite struct HandedGraphemesTests {
    /// Graphemes found once for the whole text (as `AttributedText` finds them) and handed to
    /// the layout give every paragraph the same clusters as finding them per paragraph.
    @Test func aLayoutWithTheTextsGraphemesIsTheSame() throws {
        let text = utf16("Caf\u{E9} e\u{301}t\u{E9}\r\n\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} family\u{2029}"
                         + "\u{1F1EF}\u{1F1F5}\u{1F1FA}\u{1F1F8} flags\n\n\u{915}\u{94D}\u{937} last")
        var attributed = AttributedText<TestAttributes>(text: text, maxLength: 1000)
        _ = try attributed.snapped(0, 1)
        var request = LayoutRequest(text: text, width: 80, font: FontDescriptor(family: "Noto Sans", size: 16), detail: .glyphs)
        request.keepsGeometry = true
        let plain = try sharedEngine.layout(request)
        request.graphemes = attributed.graphemes
        #expect(request.graphemes?.last == Int32(text.count))
        let handed = try sharedEngine.layout(request)
        #expect(handed.lines == plain.lines)
        #expect(handed.boundaryKinds == plain.boundaryKinds)
        #expect(handed.positions == plain.positions)
    }
}
