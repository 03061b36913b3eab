@testable import LayoutEngine
import TestSupport
import Testing

/// `ParagraphTree` against a plain array of the same paragraphs, through seeded random
/// replacements: every paragraph's start in UTF-16, UTF-8, code points, lines and y, and the
/// paragraph found at every paragraph boundary in each encoding and at every top.
@Suite struct ParagraphTreeTests {
    static let pieces = ["a", "é", "漢字", "🙂", "\u{0800}", "word ", "שלום", "x\u{301}"]

    /// A paragraph's text (ending in a separator, as every paragraph but the last does).
    func paragraph(_ generator: inout SeededGenerator) -> (item: [UInt16], summary: TextSummary) {
        var units: [UInt16] = []
        for _ in 0..<Int.random(in: 0...6, using: &generator) { units += Self.pieces.randomElement(using: &generator)!.utf16 }
        units.append(0x0A)
        let lines = Int.random(in: 1...4, using: &generator)
        return (units, TextSummary(units: units, lines: lines, height: Double(lines) * 21.792))
    }

    /// Checks the tree against `model` at every paragraph.
    func check(_ tree: ParagraphTree<[UInt16]>, _ model: [(item: [UInt16], summary: TextSummary)]) {
        #expect(tree.count == model.count)
        var start = TextSummary.zero
        for (i, entry) in model.enumerated() {
            let found = tree.start(of: i)
            #expect(found.utf16 == start.utf16 && found.utf8 == start.utf8 && found.utf32 == start.utf32
                    && found.lines == start.lines && abs(found.height - start.height) < 1e-6, "start of \(i)")
            #expect(tree.item(at: i) == entry.item)
            let text = String(decoding: model[..<i].flatMap(\.item), as: UTF16.self)
            #expect(text.utf8.count == start.utf8 && text.unicodeScalars.count == start.utf32, "encodings at \(i)")
            for encoding in [TextEncoding.utf16, .utf8, .utf32] {
                #expect(tree.paragraph(at: start.length(encoding), in: encoding)?.index == i, "\(encoding) at \(i)")
            }
            #expect(tree.paragraph(atY: start.height + 1)?.index == i, "y of \(i)")
            start = start + entry.summary
        }
        #expect(tree.summary.utf16 == start.utf16 && tree.summary.utf8 == start.utf8 && tree.summary.lines == start.lines)
        #expect(tree.paragraph(at: start.utf16, in: .utf16)?.index == (model.isEmpty ? nil : model.count - 1))
        #expect(tree.paragraph(atY: -5)?.index == (model.isEmpty ? nil : 0))
    }

    @Test func randomReplacementsMatchAnArray() throws {
        var generator = SeededGenerator(state: 35)
        var model = (0..<300).map { _ in paragraph(&generator) }
        var tree = try ParagraphTree(model)
        check(tree, model)
        for step in 0..<200 {
            let lower = Int.random(in: 0...model.count, using: &generator)
            let upper = min(model.count, lower + Int.random(in: 0...3, using: &generator))
            let inserted = (0..<Int.random(in: 0...3, using: &generator)).map { _ in paragraph(&generator) }
            model.replaceSubrange(lower..<upper, with: inserted)
            tree.replace(lower..<upper, with: inserted)
            if step % 20 == 0 { check(tree, model) }
        }
        check(tree, model)
        tree.replace(0..<tree.count, with: [])
        check(tree, [])
    }

    /// A document edited into a new one shares its tree: the old must not change.
    @Test func anEditedCopyLeavesTheOriginalAsItWas() throws {
        var generator = SeededGenerator(state: 36)
        let model = (0..<200).map { _ in paragraph(&generator) }
        let original = try ParagraphTree(model)
        var edited = original
        for _ in 0..<50 {
            let lower = Int.random(in: 0...edited.count, using: &generator)
            edited.replace(lower..<min(edited.count, lower + 2), with: [paragraph(&generator)])
        }
        check(original, model)
    }

    @Test func aLargeTreeStaysShallow() throws {
        var generator = SeededGenerator(state: 7)
        let model = (0..<20_000).map { _ in paragraph(&generator) }
        let tree = try ParagraphTree(model)
        #expect(height(tree.root) < 80, "a treap's height is O(log n) expected")
    }

    func height(_ t: TreapNode?) -> Int {
        guard let t else { return 0 }
        return 1 + max(height(t.left), height(t.right))
    }

    @Test func buildingStopsWhenAsked() {
        var generator = SeededGenerator(state: 1)
        let model = (0..<5000).map { _ in paragraph(&generator) }
        #expect(throws: EngineError.self) { _ = try ParagraphTree(model, shouldStop: { .cancelled }) }
    }
}
