import TestSupport
import Testing
@testable import LayoutEngine

/// A layout given `DeferredRelease` leaves its working data there (to be freed after the
/// answer is sent), within the bounds, and lays out exactly as without.
@Suite struct DeferredReleaseTests {
    @Test func aLayoutLeavesItsParagraphsAndStateAndLaysOutTheSame() throws {
        let text = utf16("First paragraph of words.\nSecond one, مرحبا بالعالم.\n第三段落。")
        let request = LayoutRequest(text: text, width: 120)
        let deferredRelease = DeferredRelease()
        let kept = try sharedEngine.layout(request, deferredRelease: deferredRelease)
        let plain = try sharedEngine.layout(request)
        #expect(deferredRelease.counts.paragraphs == 3)
        #expect(deferredRelease.counts.units == text.count - 2)   // (the separators are no paragraph's)
        #expect(deferredRelease.counts.contexts == 1 && deferredRelease.counts.texts == 1)
        #expect(kept.lines.count == plain.lines.count)
        for (a, b) in zip(kept.lines, plain.lines) {
            #expect(a.start == b.start && a.end == b.end && a.width == b.width && a.y == b.y)
        }
        deferredRelease.releaseAll()
        #expect(deferredRelease.counts.paragraphs == 0 && deferredRelease.counts.units == 0 && deferredRelease.counts.contexts == 0)
    }

    @Test func whatIsLeftIsBounded() throws {
        // Paragraphs past `maxUnits` in all are freed as the layout goes; the state of text
        // longer than that is not kept.
        let paragraph = String(repeating: "word ", count: 2_000)   // 10,000 units
        let long = utf16(Array(repeating: paragraph, count: 10).joined(separator: "\n"))
        let deferredRelease = DeferredRelease()
        _ = try sharedEngine.layout(LayoutRequest(text: long, width: 300), deferredRelease: deferredRelease)
        #expect(deferredRelease.counts.units <= DeferredRelease.maxUnits)
        #expect(deferredRelease.counts.paragraphs == DeferredRelease.maxUnits / 10_000)
        #expect(deferredRelease.counts.contexts == 0)
        // Many layouts (a batch): the work of `maxLayouts` at most is kept, each with its text.
        let many = DeferredRelease()
        for _ in 0..<(DeferredRelease.maxLayouts + 5) {
            _ = try sharedEngine.layout(LayoutRequest(text: utf16("a short one"), width: 100), deferredRelease: many)
        }
        #expect(many.counts.contexts == DeferredRelease.maxLayouts)
        #expect(many.counts.paragraphs == DeferredRelease.maxLayouts)
        #expect(many.counts.texts == DeferredRelease.maxLayouts)
    }
}
