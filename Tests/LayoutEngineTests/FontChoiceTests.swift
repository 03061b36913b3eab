import Testing
@testable import LayoutEngine

/// Shaping skips asking the font selector for most clusters (a code unit already seen in
/// the run's face); these tests ask it for every cluster and require the same face.
@Suite("Font choice per cluster")
struct FontChoiceTests {
    /// The face `FontSelector.face` picks for each cluster of `text`'s paragraphs, asked
    /// cluster by cluster in order, as shaping would without its fast paths.
    func reference(_ request: LayoutRequest) throws -> [(start: Int, face: FontFace)] {
        var selector = FontSelector(fonts: sharedEngine.fonts, language: request.language)
        let family = try selector.familyNumber(request.font)
        var result: [(Int, FontFace)] = []
        try request.text.withUnsafeBufferPointer { whole in
            for range in paragraphRanges(whole) where range.contentEnd > range.start {
                let text = UnsafeBufferPointer(rebasing: whole[range.start..<range.contentEnd])
                let graphemes = GraphemeBreaks.boundaries(text)
                let scripts = resolveClusterScripts(text: text, clusterStarts: graphemes)
                selector.previousFace = nil
                for c in 0..<(graphemes.count - 1) {
                    let face = try selector.face(text, Int(graphemes[c]), Int(graphemes[c + 1]), script: scripts[c],
                                                 family: family, font: request.font)
                    result.append((range.start + Int(graphemes[c]), face))
                }
            }
        }
        return result
    }

    /// The face of the shaped run holding each cluster, as `layout` shapes it.
    func shaped(_ request: LayoutRequest) throws -> [Int: FontFace] {
        var context = ParagraphContext(engine: sharedEngine, request: request)
        var faces: [Int: FontFace] = [:]
        try request.text.withUnsafeBufferPointer { whole in
            for range in paragraphRanges(whole) where range.contentEnd > range.start {
                let paragraph = try context.shape(whole, range)
                for run in paragraph.runs {
                    for offset in run.start..<run.end { faces[range.start + offset] = run.face }
                }
            }
        }
        return faces
    }

    func mismatches(_ request: LayoutRequest) throws -> [String] {
        let faces = try shaped(request)
        var found: [String] = []
        for (start, face) in try reference(request) where faces[start] !== face {
            found.append("offset \(start): \(faces[start]?.familyName ?? "none") instead of \(face.familyName)")
        }
        return found
    }

    @Test func corpusClustersGetTheFaceTheSelectorPicks() throws {
        var clusters = 0
        for (lang, text) in try ShapeCacheTests.corpus() {
            let request = LayoutRequest(text: utf16(text), width: 360, font: FontDescriptor(family: "Noto Sans", size: 16),
                                        language: lang)
            let found = try mismatches(request)
            #expect(found.isEmpty, "\(lang): \(found.prefix(5))")
            clusters += request.text.count
        }
        #expect(clusters > 100_000)
    }

    /// Random mixes of scripts, spaces, marks, joiners and emoji (text and emoji
    /// presentation), in several paragraphs: runs of fallback faces begin and end at every
    /// kind of cluster, and units come back in runs of other faces and scripts.
    @Test func mixedScriptClustersGetTheFaceTheSelectorPicks() throws {
        let pool = ["a", "b", " ", " ", "中", "文", "字", "ا", "ب", "ل", "א", "ש", "😀", "e\u{301}", "ก", "ั", "\u{200D}", "1",
                    "한", "글", "α", "ж", "☺", "☺\u{FE0F}", "\u{2014}", "\u{00A0}", "क", "ि", "\u{2029}", "\t", ".", "ー", "あ"]
        var random = XorShift64(state: 0x5EED_F0E7)
        for _ in 0..<40 {
            var text = ""
            for _ in 0..<600 { text += pool[Int(random.next() % UInt64(pool.count))] }
            for lang in ["", "ja", "ar"] {
                let request = LayoutRequest(text: utf16(text), width: 300, font: FontDescriptor(family: "Noto Sans", size: 16),
                                            language: lang)
                let found = try mismatches(request)
                #expect(found.isEmpty, "\(lang): \(found.prefix(5))")
            }
        }
    }

    /// The shared table of fallback choices against a dictionary: random keys (code points
    /// and packed clusters with their tags) set and read back through growth, replacement
    /// and the clearing at its bound.
    @Test func sharedChoicesReadBackWhatWasSet() throws {
        let list = try sharedEngine.fonts.fallbackList(for: FontDescriptor(family: "Noto Sans"), language: "")
        let faces = (0..<min(list.count, 12)).compactMap { list.face(at: $0) }
        #expect(faces.count >= 4)
        let table = ScalarFaces()
        var model: [[UInt64]: Int] = [:]
        var random = XorShift64(state: 0xFACE_5EED)
        var checked = 0
        for step in 0..<150_000 {
            // Small key ranges repeat keys (replacement); wide ones fill the table to its bound.
            let a = step % 3 == 0 ? random.next() % 512 : random.next()
            let b = random.next() % (step % 5 == 0 ? 4 : 1 << 35)
            let face = Int(random.next() % UInt64(faces.count))
            table.set(faces[face], a, b)
            if model.count >= 65_536 { model.removeAll() }   // the table starts over there too
            model[[a, b]] = face
            if step % 7 == 0 {
                for (key, expected) in model.prefix(3) {
                    #expect(table.face(key[0], key[1]) === faces[expected])
                    checked += 1
                }
                #expect(table.face(random.next() | 1 << 63, 1 << 40) == nil)
            }
        }
        for (key, expected) in model { #expect(table.face(key[0], key[1]) === faces[expected]) }
        #expect(model.count > 10_000 && checked > 10_000)
    }
}
