import TestSupport
import Testing
@testable import LayoutEngine
import CFontconfig

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
                    result.append((range.start + Int(graphemes[c]), face.takeUnretainedValue()))
                }
            }
        }
        return result
    }

    /// The face of the shaped run holding each cluster, as `layout` shapes it.
    func shaped(_ request: LayoutRequest) throws -> [Int: FontFace] {
        var context = RequestContext(engine: sharedEngine, request: request)
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

    /// A fallback list matches its first font (`FcFontMatch`) and sorts the rest only when a
    /// later candidate is asked for; once sorted, its order is exactly `FcFontSort`'s for the
    /// same pattern (the order every list had when it was sorted up front) — as is a list
    /// sorted as it is made (`sortNow`).
    @Test func listsSortOnlyWhenAskedAndInFontconfigsOrder() throws {
        let config = try FontConfiguration(path: "\(repositoryRoot)/config/fonts.conf")
        let lock = FontconfigLock(), loader = FaceLoader(capacity: 64)
        for (family, language) in [("Noto Sans", ""), ("sans-serif", "ar"), ("serif", "ja"), ("monospace", "ru"),
                                   ("Noto Sans Thai", "th"), ("Noto Color Emoji", ""), ("No Such Family", "hi"),
                                   ("Noto Sans, Noto Sans Hebrew", "he")] {
            let key = FontDescriptor(family: family).selectionKey
            let list = try FallbackList(config: config, descriptor: key, language: language, loader: loader, lock: lock)
            // Text the first font has: answered without the sort.
            #expect(list.candidate(forCluster: CollectionOfOne(UInt32(0x20))) == 0)
            #expect(!list.isSorted, "\(family) \(language): sorted for a space")
            let lazy = list.identities
            #expect(list.isSorted)
            let sortedNow = try FallbackList(config: config, descriptor: key, language: language, loader: loader, lock: lock,
                                             sortNow: true)
            #expect(sortedNow.isSorted)
            #expect(sortedNow.identities == lazy, "\(family) \(language): sorted at once, another order")
            #expect(sortedNow.candidate(forCluster: CollectionOfOne(UInt32(0x20))) == 0)
            // FcFontSort's own order, duplicates dropped.
            let pattern = try #require(FallbackList.pattern(config: config, descriptor: key, language: language))
            defer { FcPatternDestroy(pattern) }
            var result = FcResultNoMatch
            let set = try #require(FcFontSort(config.config, pattern, FcBool(FcTrue), nil, &result))
            defer { FcFontSetDestroy(set) }
            var eager: [FaceIdentity] = []
            for i in 0..<Int(set.pointee.nfont) {
                guard let font = set.pointee.fonts[i], let (path, index) = fontFile(of: font) else { continue }
                let identity = FaceIdentity(path: path, index: Int(index & 0xFFFF))
                if !eager.contains(identity) { eager.append(identity) }
            }
            #expect(lazy == eager, "\(family) \(language): \(lazy.prefix(3)) against \(eager.prefix(3))")
            #expect(lazy.count > 10)
        }
    }

    /// The first candidate's coverage bits, read from fontconfig a page at a time, against
    /// fontconfig asked for each code point below the limit, for lists of several families
    /// and languages.
    @Test func firstCandidateCoverageMatchesFontconfigPerCodePoint() throws {
        var lists = 0, covered = 0
        for (family, language) in [("Noto Sans", ""), ("sans-serif", "ar"), ("serif", "ja"), ("monospace", ""),
                                   ("Noto Sans Thai", "th"), ("Noto Color Emoji", "")] {
            let list = try sharedEngine.fonts.fallbackList(for: FontDescriptor(family: family), language: language)
            let bits = list.firstCandidateCoverage()
            #expect(bits.count == Int(FallbackList.firstCoverageLimit) / 64)
            var differences: [UInt32] = []
            for scalar in 0..<FallbackList.firstCoverageLimit {
                let bit = bits[Int(scalar >> 6)] >> UInt64(scalar & 63) & 1 == 1
                if bit != list.covers(0, scalar) { differences.append(scalar) }
                if bit { covered += 1 }
            }
            #expect(differences.isEmpty, "\(family) \(language): \(differences.prefix(8))")
            lists += 1
        }
        #expect(lists == 6)
        #expect(covered > 3000)
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
