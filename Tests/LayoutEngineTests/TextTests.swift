import TestSupport
import Testing
@testable import LayoutEngine

@Suite struct TextTests {
    func paragraphs(_ s: String) -> [ParagraphRange] {
        utf16(s).withUnsafeBufferPointer { paragraphRanges($0) }
    }

    /// The scan reads eight and four units at a time: separators at every position of those
    /// words, and units that are near misses (0x0E, 0x84, 0x86, 0x2028, 0x202A, 0x8085, CJK
    /// above 0x8000), must split exactly as a unit-by-unit scan does.
    @Test func paragraphScanMatchesAUnitByUnitScan() {
        func reference(_ u: [UInt16]) -> [ParagraphRange] {
            var result: [ParagraphRange] = [], start = 0, i = 0
            while i < u.count {
                if [0x0A, 0x0D, 0x85, 0x2029].contains(u[i]) {
                    var end = i + 1
                    if u[i] == 0x0D, end < u.count, u[end] == 0x0A { end += 1 }
                    result.append(ParagraphRange(start: start, contentEnd: i, end: end))
                    start = end
                    i = end
                } else {
                    i += 1
                }
            }
            return result + [ParagraphRange(start: start, contentEnd: u.count, end: u.count)]
        }
        let pool: [UInt16] = [0x41, 0x41, 0x41, 0x4E00, 0x9FFF, 0x0A, 0x0D, 0x85, 0x2029, 0x0E, 0x0C, 0x84, 0x86,
                              0x2028, 0x202A, 0x8085, 0xA029, 0x00, 0xFFFF]
        var random = XorShift64(state: 0x0123_4567_89AB_CDEF)
        for _ in 0..<5_000 {
            var units: [UInt16] = []
            for _ in 0..<Int(random.state % 40) {
                let r = random.next()
                units.append(r % 5 == 0 ? pool[Int(r >> 8) % pool.count] : 0x61)
            }
            _ = random.next()
            #expect(units.withUnsafeBufferPointer { paragraphRanges($0) } == reference(units), "\(units)")
        }
    }

    /// An edited text's paragraphs, found by comparing the previous text's paragraphs at the
    /// start and the end and scanning only between them, must be the paragraphs a whole scan
    /// finds; each paragraph said to be found must have that previous paragraph's units. Edits
    /// that make and split CR LF, remove and add separators, at the ends and in the middle.
    @Test func editedTextSplitsAsAWholeScan() {
        let pool: [[UInt16]] = [[0x61], [0x62, 0x63], [0x0A], [0x0D], [0x0D, 0x0A], [0x85], [0x2029], [0x4E00]]
        var random = XorShift64(state: 0x2545_F491_4F6C_DD1D)
        func pick(_ n: Int) -> Int { Int(random.next() >> 1) % max(n, 1) }
        func piece() -> [UInt16] { (0..<pick(4)).flatMap { _ in pool[pick(pool.count)] } }
        var found = 0
        for _ in 0..<20_000 {
            var old: [UInt16] = []
            for _ in 0..<pick(10) { old += piece() }
            let previous = old.withUnsafeBufferPointer { paragraphRanges($0) }.map { Array(old[$0.start..<$0.end]) }
            var new = old
            for _ in 0...pick(2) {
                let a = pick(new.count + 1), b = min(new.count, a + pick(4))
                new.replaceSubrange(a..<b, with: piece())
            }
            let whole = new.withUnsafeBufferPointer { paragraphRanges($0) }
            let (ranges, matches) = new.withUnsafeBufferPointer { paragraphRanges($0, previous: previous) }
            #expect(ranges == whole, "\(old) → \(new)")
            #expect(matches.count == ranges.count)
            for (range, m) in zip(ranges, matches) where m >= 0 {
                #expect(previous[m] == Array(new[range.start..<range.end]), "\(old) → \(new): paragraph \(range)")
                found += 1
            }
            #expect(Set(matches.filter { $0 >= 0 }).count == matches.filter { $0 >= 0 }.count, "a previous paragraph found twice")
        }
        #expect(found > 20_000, "paragraphs are found in place")
    }

    @Test func paragraphSeparators() {
        #expect(paragraphs("ab") == [ParagraphRange(start: 0, contentEnd: 2, end: 2)])
        #expect(paragraphs("a\nb\r\nc\rd\u{2029}e\u{85}f") == [
            ParagraphRange(start: 0, contentEnd: 1, end: 2),
            ParagraphRange(start: 2, contentEnd: 3, end: 5),
            ParagraphRange(start: 5, contentEnd: 6, end: 7),
            ParagraphRange(start: 7, contentEnd: 8, end: 9),
            ParagraphRange(start: 9, contentEnd: 10, end: 11),
            ParagraphRange(start: 11, contentEnd: 12, end: 12),
        ])
        #expect(paragraphs("a\n") == [ParagraphRange(start: 0, contentEnd: 1, end: 2),
                                      ParagraphRange(start: 2, contentEnd: 2, end: 2)])
        #expect(paragraphs("") == [ParagraphRange(start: 0, contentEnd: 0, end: 0)])
    }

    @Test func offsetMappingCountsEachEncoding() {
        let text = utf16("aé€😀b")   // 1, 2, 3, 4 UTF-8 bytes; the emoji is a surrogate pair
        let utf8 = OffsetMapping(text: text, encoding: .utf8)
        let utf32 = OffsetMapping(text: text, encoding: .utf32)
        let utf16Map = OffsetMapping(text: text, encoding: .utf16)
        #expect((0...text.count).map(utf8.convert) == [0, 1, 3, 6, 6, 10, 11])
        #expect((0...text.count).map(utf32.convert) == [0, 1, 2, 3, 3, 4, 5])
        #expect((0...text.count).map(utf16Map.convert) == [0, 1, 2, 3, 4, 5, 6])
    }

    @Test func decodesSurrogatesAndLoneOnes() {
        let text: [UInt16] = [0xD83D, 0xDE00, 0xD800, 0x41]
        text.withUnsafeBufferPointer { t in
            #expect(decodeUTF16(t, at: 0) == (0x1F600, 2))
            #expect(decodeUTF16(t, at: 2) == (0xFFFD, 1))
            #expect(decodeUTF16(t, at: 3) == (0x41, 1))
        }
    }

    @Test func commonCharactersTakeTheirNeighboursScript() {
        let text = utf16("12 abc مرحبا!")
        let clusters = (0...text.count).map(Int32.init)
        let scripts = text.withUnsafeBufferPointer { resolveClusterScripts(text: $0, clusterStarts: clusters) }
        #expect(scripts.map(\.tag) == ["Latn", "Latn", "Latn", "Latn", "Latn", "Latn", "Latn",
                                       "Arab", "Arab", "Arab", "Arab", "Arab", "Arab"])
    }
}

extension TextTests {
    /// Cluster scripts as the plain rule gives them (each code point's own script, clusters
    /// of Common and Inherited taking the script before them, or after them at the start),
    /// for random clusters of letters of several scripts, marks, digits, punctuation, spaces,
    /// astral letters, lone surrogates and code points the BMP table leaves to ICU.
    @Test func clusterScriptsFollowThePlainRule() {
        func reference(_ text: [UInt16], _ starts: [Int32]) -> [Int32] {
            var scripts = [Int32](repeating: 0, count: starts.count - 1)
            var last: Int32?
            for c in 0..<(starts.count - 1) {
                var found: Int32?
                var i = Int(starts[c])
                while i < Int(starts[c + 1]) {
                    let (scalar, width) = text.withUnsafeBufferPointer { decodeUTF16($0, at: i) }
                    let code = Script(of: scalar).code
                    if code > 1 { found = code; break }
                    i += width
                }
                if let found {
                    if last == nil { for k in 0..<c { scripts[k] = found } }
                    scripts[c] = found
                    last = found
                } else if let last {
                    scripts[c] = last
                }
            }
            return last == nil ? scripts.map { _ in 0 } : scripts
        }
        let pool: [[UInt16]] = [[0x61], [0x5D0], [0x645], [0x4E2D], [0x915], [0x301], [0x31], [0x21], [0x20],
                                [0xD835, 0xDC00], [0xD83D, 0xDE00], [0xD800], [0xDC00], [0xD801, 0xDC00] /* U+10400 */,
                                [0xDB40, 0xDD00] /* U+E0100, Inherited */, [0x3042], [0x0E01], [0xA8E0]]
        var random = XorShift64(state: 0x5151_7A7A_0F0F_3C3C)
        func pick(_ n: Int) -> Int { Int(random.next() >> 1) % n }
        for _ in 0..<5_000 {
            var text: [UInt16] = [], starts: [Int32] = [0]
            for _ in 0..<pick(12) {
                for _ in 0...pick(3) { text += pool[pick(pool.count)] }
                starts.append(Int32(text.count))
            }
            let scripts = text.withUnsafeBufferPointer { resolveClusterScripts(text: $0, clusterStarts: starts) }
            #expect(scripts.map(\.code) == reference(text, starts), "\(text) \(starts)")
        }
    }
}

extension TextTests {
    /// Where each offset's run of hanging white space starts, as shaping a paragraph finds it
    /// (`ShapedParagraph.hangStart`, made in its pass over the advances), against a unit-by-
    /// unit reading of `isHangingSpace`, for random text of spaces of every kind and near misses.
    @Test func hangingSpaceStartsFollowTheUnits() throws {
        let pool: [UInt16] = [0x20, 0x09, 0x0B, 0x0C, 0x0A, 0x1F, 0x21, 0xA0, 0x1680, 0x167F, 0x1681, 0x2000, 0x2006,
                              0x2007, 0x2008, 0x200B, 0x200C, 0x2028, 0x2029, 0x205F, 0x3000, 0x3001, 0x61, 0x4E2D]
        var random = XorShift64(state: 0x7777_1234_ABCD_0001)
        for _ in 0..<3_000 {
            let text = (0..<Int(random.next() % 30)).map { _ in pool[Int(random.next() % UInt64(pool.count))] }
            let expected = hangingSpaceStarts(unitByUnit: text)
            guard !text.isEmpty else { continue }
            var context = RequestContext(engine: sharedEngine, request: LayoutRequest(text: text, width: 100))
            let shaped = try text.withUnsafeBufferPointer {
                try context.shape($0, ParagraphRange(start: 0, contentEnd: text.count, end: text.count))
            }
            #expect(shaped.hangStart == expected, "\(text)")
        }
    }
}

@Suite struct ScriptLanguageTests {
    @Test func fallbackLanguageFollowsTheScript() {
        let arabic = Script(of: 0x0645), han = Script(of: 0x4F60), latin = Script(of: 0x61)
        #expect(arabic.language(preferring: "") == "ar")
        #expect(arabic.language(preferring: "fa-IR") == "fa-IR", "the request's language when it writes the script")
        #expect(arabic.language(preferring: "en") == "ar")
        #expect(han.language(preferring: "ja") == "ja")
        #expect(han.language(preferring: "") == "zh-cn")
        #expect(latin.language(preferring: "de") == "de")
    }
}

/// `utf16Units(of:)` transcodes UTF-8 to UTF-16 itself (the request path's conversion); it
/// must give exactly what the standard library's `utf16` view gives.
@Suite struct UTF16TranscodingTests {
    @Test func corpusAndEveryLengthOfSequenceMatchTheStandardLibrary() throws {
        var texts = try ShapeCacheTests.corpus().map(\.text)
        texts += ["", "a", "é", "€", "😀", "a😀é€\u{10FFFF}\u{0}\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}",
                  String(repeating: "👩‍👩‍👧‍👦", count: 100)]
        for text in texts {
            #expect(utf16Units(of: text) == Array(text.utf16))
        }
    }
}
