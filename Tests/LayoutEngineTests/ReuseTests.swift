import TestSupport
import Testing
@testable import LayoutEngine

/// A layout of edited text that takes over the previous layout's paragraphs must equal a fresh
/// layout of that text: every line, run, size and caret position. Documents of eight corpus
/// paragraphs, each alignment, bounded and unbounded width; edits anywhere (so paragraphs
/// after an edit move, those before it stay, and an unbounded width realigns every line).
@Suite struct ReuseTests {
    func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-6 }

    func same(_ a: LineBox, _ b: LineBox) -> Bool {
        guard a.start == b.start, a.end == b.end, a.isRTL == b.isRTL, a.hyphenated == b.hyphenated,
              a.showsToken == b.showsToken, a.endsParagraph == b.endsParagraph, a.runs.count == b.runs.count,
              close(a.x, b.x), close(a.y, b.y), close(a.width, b.width), close(a.height, b.height),
              close(a.baseline, b.baseline), close(a.ascent, b.ascent), close(a.descent, b.descent) else { return false }
        return zip(a.runs, b.runs).allSatisfy { r, s in
            r.start == s.start && r.end == s.end && r.font == s.font && r.style == s.style && r.level == s.level
                && r.isToken == s.isToken && close(r.x, s.x) && close(r.width, s.width) && r.glyphs == s.glyphs
        }
    }

    func runs(_ layout: TextLayout) -> Int { layout.lines.reduce(0) { $0 + $1.runs.count } }
    func glyphs(_ layout: TextLayout) -> Int {
        layout.lines.reduce(0) { $0 + $1.runs.reduce(0) { $0 + $1.glyphs.count } }
    }

    /// The counts memory accounting reads are the lines' own, after truncation too (which
    /// drops and replaces lines), and zero when the result keeps no runs.
    @Test func runAndGlyphCountsAreTheLines() throws {
        let corpus = try ShapeCacheTests.corpus()
        let text = corpus.prefix(6).map(\.text).joined(separator: "\n")
        for mode in Truncation.Mode.allCases {
            for maxLines in [nil, 1, 3] as [Int?] {
                var r = LayoutRequest(text: utf16(text), width: 240, font: FontDescriptor(family: "Noto Sans", size: 16),
                                      detail: .runs)
                r.maxLines = maxLines
                r.truncation = Truncation(mode: mode)
                let layout = try sharedEngine.layout(r)
                #expect(layout.runCount == runs(layout) && layout.glyphCount == glyphs(layout), "\(mode) \(String(describing: maxLines))")
                #expect(layout.runCount > 0)
            }
        }
        let plain = try sharedEngine.layout(LayoutRequest(text: utf16(text), width: 240))
        #expect(plain.runCount == 0 && plain.glyphCount == 0 && runs(plain) == 0)
    }

    @Test func editedDocumentsLayOutAsFresh() throws {
        let corpus = try ShapeCacheTests.corpus()
        var generator = XorShift64(state: 0x5DEE_CE66_D1CE_4E5D)
        func random(_ n: Int) -> Int { Int(generator.next() >> 1) % max(n, 1) }
        let aligns: [TextAlignment] = [.start, .center, .end, .justify]
        var reused = 0, unchangedLines = 0
        for trial in 0..<16 {
            let width: Double? = trial % 4 == 3 ? nil : Double(200 + random(300))
            func request(_ paragraphs: [String]) -> LayoutRequest {
                var r = LayoutRequest(text: utf16(paragraphs.joined(separator: "\n")), width: width,
                                      font: FontDescriptor(family: "Noto Sans", size: 16), detail: .runs)
                r.paragraph.align = aligns[trial % aligns.count]
                r.keepsGeometry = true
                r.keepsReusable = true
                return r
            }
            var paragraphs = (0..<8).map { _ in String(corpus[random(corpus.count)].text.prefix(300)) }
            var previousLayout = try sharedEngine.layout(request(paragraphs))
            var previous = previousLayout.reusable
            for _ in 0..<6 {
                let p = random(paragraphs.count)
                switch random(4) {
                case 0: paragraphs[p] += " more words, and more"
                case 1: paragraphs.insert("A new short paragraph.", at: p)
                case 2 where paragraphs.count > 2: paragraphs.remove(at: p)
                default: paragraphs[p] = String(paragraphs[p].prefix(paragraphs[p].count / 2))
                }
                var edited = request(paragraphs)
                edited.previous = previous
                let updated = try sharedEngine.layout(edited)
                let fresh = try sharedEngine.layout(request(paragraphs))
                // Equal as clients see them: offsets, fonts and flags exactly, coordinates to
                // 1e-6 pt (a moved paragraph's y is its old y plus the shift, summed in another
                // order than a fresh layout sums it; the wire rounds to 1/1000 pt).
                #expect(updated.lines.count == fresh.lines.count, "trial \(trial): line counts differ")
                for (a, b) in zip(updated.lines, fresh.lines) where !same(a, b) {
                    Issue.record("trial \(trial): line \(b.start)..<\(b.end) differs: \(a) vs \(b)")
                    break
                }
                #expect(close(updated.width, fresh.width) && close(updated.height, fresh.height), "trial \(trial): size differs")
                // Caret positions exactly: each paragraph's are added to the sum before it, the
                // same way whether the paragraph was laid out or taken over.
                #expect(updated.positions == fresh.positions && updated.boundaryKinds == fresh.boundaryKinds,
                        "trial \(trial): geometry differs")
                // Text-wide sums: each paragraph's continue from the one before.
                #expect((0..<(fresh.positions.count - 1)).allSatisfy { fresh.positions[$0] <= fresh.positions[$0 + 1] + 1e-9 },
                        "trial \(trial): positions go back")
                #expect(updated.runCount == runs(updated) && updated.glyphCount == glyphs(updated)
                        && fresh.runCount == runs(fresh) && fresh.glyphCount == glyphs(fresh),
                        "trial \(trial): run and glyph counts are the lines'")
                // The lines said to be taken over unchanged are the previous layout's, exactly.
                let exact = zip(previousLayout.lines, updated.lines).prefix { $0 == $1 }.count
                #expect(updated.unchangedLeadingLines <= exact, "trial \(trial): \(updated.unchangedLeadingLines) lines said unchanged, \(exact) are")
                unchangedLines += updated.unchangedLeadingLines
                reused += updated.reusedParagraphs
                previous = updated.reusable
                previousLayout = updated
            }
        }
        #expect(reused > 300, "paragraphs are taken over")
        #expect(unchangedLines > 500, "leading lines are known unchanged")
    }

    /// A layout that keeps shaping for reuse but reads no glyphs (lines only, no geometry:
    /// a retained document's compact pieces) keeps none; a later layout that reads them —
    /// runs and geometry for a caret — fetches them again, and its lines, runs, glyphs and
    /// caret positions equal a fresh layout's: every script of the corpus, right to left and
    /// bidi paragraphs, a second style with letter spacing and a baseline offset, and an
    /// inline object, at four widths.
    @Test func glyphsLeftOutOfKeptShapingAreFetchedAgain() throws {
        let corpus = try ShapeCacheTests.corpus()
        var generator = XorShift64(state: 0x61F0_3A2B_9C4D_1E57)
        func random(_ n: Int) -> Int { Int(generator.next() >> 1) % max(n, 1) }
        var refetched = 0
        for trial in 0..<24 {
            let text = utf16((0..<4).map { _ in String(corpus[random(corpus.count)].text.prefix(260)) }
                .joined(separator: "\n") + " \u{FFFC} end")
            func request(_ detail: LayoutDetail, keeps geometry: Bool) -> LayoutRequest {
                var r = LayoutRequest(text: text, width: Double([120, 200, 320, 480][trial % 4]),
                                      font: FontDescriptor(family: "Noto Sans", size: 16), detail: detail)
                r.styles.append(SpanStyle(font: FontDescriptor(family: "DejaVu Sans", size: 13, weight: 700),
                                          letterSpacing: 1.5, baselineOffset: 2))
                r.styles.append(SpanStyle(font: r.font, attachment: Attachment(width: 24, ascent: 16, descent: 4)))
                let cut = text.count / 3
                r.styleRuns = [StyleRun(start: 0, style: 0), StyleRun(start: cut, style: 1), StyleRun(start: cut + 40, style: 0),
                               StyleRun(start: text.count - 5, style: 2), StyleRun(start: text.count - 4, style: 0)]
                r.paragraph.direction = [.auto, .rtl, .ltr][trial % 3]
                r.keepsGeometry = geometry
                r.keepsReusable = true
                return r
            }
            let compact = try sharedEngine.layout(request(.lines, keeps: false))
            let compactKept = try #require(compact.reusable)
            let kept = compactKept.paragraphs.compactMap(\.shaping)
            #expect(kept.count == compactKept.paragraphs.count && kept.allSatisfy { !$0.hasGlyphs },
                    "trial \(trial): a layout reading no glyphs keeps none")
            var full = request(.glyphs, keeps: true)
            full.previous = compact.reusable
            let refilled = try sharedEngine.layout(full)
            let fresh = try sharedEngine.layout(request(.glyphs, keeps: true))
            #expect(refilled.reshapedParagraphs == 0, "trial \(trial): the kept shaping is taken")
            #expect(refilled.lines.count == fresh.lines.count, "trial \(trial): line counts differ")
            for (a, b) in zip(refilled.lines, fresh.lines) where !same(a, b) {
                Issue.record("trial \(trial): line \(b.start)..<\(b.end) differs: \(a) vs \(b)")
                break
            }
            #expect(refilled.positions == fresh.positions, "trial \(trial): caret positions differ")
            #expect(refilled.reusable?.paragraphs.allSatisfy { $0.shaping?.hasGlyphs == true } == true,
                    "trial \(trial): the glyphs fetched are kept")
            refetched += glyphs(refilled)
        }
        #expect(refetched > 10_000)
    }

    /// A layout that keeps geometry, made from a lines-only layout of the same text under the
    /// same line parameters (a retained document's piece when a caret first reaches it), puts
    /// the lines together again at the ends they had: its lines and caret positions equal a
    /// fresh layout's. Paragraphs ending in CRLF, LF, U+2028 and nothing, soft hyphens and
    /// automatic hyphenation, justified and optimal lines, a first-line indent.
    @Test func linesKeptWithoutGeometryAreMadeAgainAtTheirEnds() throws {
        let corpus = try ShapeCacheTests.corpus()
        var generator = XorShift64(state: 0x3C6E_F372_FE94_F82B)
        func random(_ n: Int) -> Int { Int(generator.next() >> 1) % max(n, 1) }
        let separators = ["\r\n", "\n", "\u{2028}\n", "\u{2029}"]
        for trial in 0..<20 {
            var text = ""
            for k in 0..<5 {
                var words = String(corpus[random(corpus.count)].text.prefix(220)).split(separator: " ").map(String.init)
                if k == 2, words.count > 3 { words[1] = "hy\u{AD}phen\u{AD}ation" }
                text += words.joined(separator: " ") + separators[(trial + k) % separators.count]
            }
            func request(keepsGeometry: Bool) -> LayoutRequest {
                var r = LayoutRequest(text: utf16(text), width: Double([150, 240, 330][trial % 3]),
                                      font: FontDescriptor(family: "Noto Sans", size: 16), detail: .lines)
                r.language = "en-US"
                r.paragraph.hyphenation = trial % 2 == 0 ? .auto : .manual
                r.paragraph.align = trial % 4 == 1 ? .justify : .start
                r.paragraph.wrapStyle = trial % 5 == 2 ? .optimal : .greedy
                r.paragraph.firstLineIndent = trial % 3 == 0 ? 12 : 0
                r.keepsGeometry = keepsGeometry
                r.keepsReusable = true
                return r
            }
            let compact = try sharedEngine.layout(request(keepsGeometry: false))
            var full = request(keepsGeometry: true)
            full.previous = compact.reusable
            let remade = try sharedEngine.layout(full)
            let fresh = try sharedEngine.layout(request(keepsGeometry: true))
            #expect(remade.lines.count == fresh.lines.count, "trial \(trial): line counts differ")
            for (a, b) in zip(remade.lines, fresh.lines) where !same(a, b) {
                Issue.record("trial \(trial): line \(b.start)..<\(b.end) differs: \(a) vs \(b)")
                break
            }
            #expect(remade.positions == fresh.positions && remade.boundaryKinds == fresh.boundaryKinds,
                    "trial \(trial): geometry differs")
            #expect(remade.reshapedParagraphs == 0, "trial \(trial): the kept shaping is taken")
        }
    }
}
