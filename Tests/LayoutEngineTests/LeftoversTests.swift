import Testing
@testable import LayoutEngine

/// A layout given `LayoutLeftovers` leaves its working data there (to be freed after the
/// answer is sent), within the bounds, and lays out exactly as without.
@Suite struct LeftoversTests {
    @Test func aLayoutLeavesItsParagraphsAndStateAndLaysOutTheSame() throws {
        let text = utf16("First paragraph of words.\nSecond one, مرحبا بالعالم.\n第三段落。")
        let request = LayoutRequest(text: text, width: 120)
        let leftovers = LayoutLeftovers()
        let kept = try sharedEngine.layout(request, leftovers: leftovers)
        let plain = try sharedEngine.layout(request)
        #expect(leftovers.counts.paragraphs == 3)
        #expect(leftovers.counts.units == text.count - 2)   // (the separators are no paragraph's)
        #expect(leftovers.counts.contexts == 1 && leftovers.counts.texts == 1)
        #expect(kept.lines.count == plain.lines.count)
        for (a, b) in zip(kept.lines, plain.lines) {
            #expect(a.start == b.start && a.end == b.end && a.width == b.width && a.y == b.y)
        }
        leftovers.releaseAll()
        #expect(leftovers.counts.paragraphs == 0 && leftovers.counts.units == 0 && leftovers.counts.contexts == 0)
    }

    @Test func whatIsLeftIsBounded() throws {
        // Paragraphs past `maxUnits` in all are freed as the layout goes; the state of text
        // longer than that is not kept.
        let paragraph = String(repeating: "word ", count: 2_000)   // 10,000 units
        let long = utf16(Array(repeating: paragraph, count: 10).joined(separator: "\n"))
        let leftovers = LayoutLeftovers()
        _ = try sharedEngine.layout(LayoutRequest(text: long, width: 300), leftovers: leftovers)
        #expect(leftovers.counts.units <= LayoutLeftovers.maxUnits)
        #expect(leftovers.counts.paragraphs == LayoutLeftovers.maxUnits / 10_000)
        #expect(leftovers.counts.contexts == 0)
        // Many layouts (a batch): the work of `maxLayouts` at most is kept, each with its text.
        let many = LayoutLeftovers()
        for _ in 0..<(LayoutLeftovers.maxLayouts + 5) {
            _ = try sharedEngine.layout(LayoutRequest(text: utf16("a short one"), width: 100), leftovers: many)
        }
        #expect(many.counts.contexts == LayoutLeftovers.maxLayouts)
        #expect(many.counts.paragraphs == LayoutLeftovers.maxLayouts)
        #expect(many.counts.texts == LayoutLeftovers.maxLayouts)
    }
}
