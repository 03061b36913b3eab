import CHarfBuzz

/// Longest grapheme cluster, in UTF-16 units, shaped in one piece (Unicode's stream-safe
/// format allows 30 combining marks in a row; real text stays far below this).
let maxShapedClusterLength = 64

/// One paragraph analysed and shaped: bidi levels, grapheme clusters, shaped runs, the
/// advance of each UTF-16 unit (at its cluster's first unit, letter spacing included),
/// break opportunities, tabs and soft hyphens. Offsets are relative to the paragraph.
struct ShapedParagraph {
    let range: ParagraphRange
    /// The paragraph's content (borrowed from the request's text, valid during the layout).
    let text: UnsafeBufferPointer<UInt16>
    let bidi: BidiParagraph
    let graphemes: [Int32]
    let runs: [ShapedRun]
    /// Shaped advances per unit, letter spacing included, and their prefix sums.
    let advances: [Double]
    let prefix: [Double]
    let breaks: LineBreaks
    let hangStart: [Int32]
    /// Offsets of the tab characters.
    let tabs: [Int]
    let softHyphenEnds: Set<Int>
    /// Whether the content ends with a line separator (which opens one more, empty line).
    let endsWithHardBreak: Bool

    var count: Int { advances.count }
    var isRTL: Bool { bidi.isRTL }

    /// The shaped runs overlapping `start..<end`, in logical order.
    func runs(overlapping start: Int, _ end: Int) -> ArraySlice<ShapedRun> {
        let first = runs.partitionPoint { $0.end <= start }
        var last = first
        while last < runs.count, runs[last].start < max(end, start + 1) { last += 1 }
        return runs[first..<last]
    }
}

/// Per-request state reused across its paragraphs: font choice, a HarfBuzz buffer, the
/// request's styles and their shaping features, and the table of fonts the result refers to.
struct ParagraphContext {
    let engine: TextLayoutEngine
    let request: LayoutRequest
    let shaping = ShapingBuffer()
    let language: hb_language_t?
    let locale: String
    var selector: FontSelector
    /// The HarfBuzz features of each style.
    let features: [[hb_feature_t]]
    /// Each style's shaping identity: equal for styles that shape alike (same font, letter
    /// spacing and baseline offset), so runs split only where shaping must.
    let shapingID: [Int]
    /// Each style's family number in the selector, looked up on first use.
    private var styleFamily: [Int?]
    /// The grapheme boundaries of the paragraph being shaped (words are cached only when they
    /// split at one).
    private var currentGraphemes: [Int32] = []
    /// The code units this request has seen take each fallback face, for the fast path
    /// in `shape`.
    private var faceBits = FaceBits()
    /// Whether each style is an inline object's (read per cluster; the style is not copied).
    private let isAttachmentStyle: [Bool]
    /// Shape cache context numbers this request looked up, past the eight last used (a
    /// table made only when a request has more than eight contexts).
    private var contextMemo: [ContextMemoKey: Int] = [:]
    /// The eight context numbers last used, compared before hashing; and the slot the next
    /// one replaces (moving the one there to `contextMemo`) once there are eight.
    private var recentContexts: [(key: ContextMemoKey, number: Int)] = []
    private var nextRecentContext = 0
    /// Whether anything reads the shaped runs' glyphs: glyph or run detail, geometry kept
    /// for queries, a layout kept for reuse or reusing one. Without, a word found in the
    /// shape cache only adds its advances (`ShapeCache.addAdvances`) and runs keep no glyphs.
    let needsGlyphs: Bool
    /// Fonts the result's runs refer to, by index.
    var fonts: [UsedFont] = []
    private var fontIndex: [UsedFont: Int] = [:]

    init(engine: TextLayoutEngine, request: LayoutRequest) {
        self.engine = engine
        self.request = request
        self.language = harfBuzzLanguage(request.language)
        self.locale = icuLocale(request.language)
        self.selector = FontSelector(fonts: engine.fonts, language: request.language)
        self.features = request.styles.map(harfBuzzFeatures)
        self.styleFamily = [Int?](repeating: nil, count: request.styles.count)
        self.isAttachmentStyle = request.styles.map { $0.attachment != nil }
        self.needsGlyphs = request.detail >= .runs || request.keepsGeometry || request.keepsReusable
            || request.previous != nil
        if request.styles.count == 1 {
            self.shapingID = [0]   // (most requests: no table to hash the one style into)
        } else {
            var ids: [SpanStyle: Int] = [:]
            self.shapingID = request.styles.map { style in
                if let known = ids[style] { return known }
                ids[style] = ids.count
                return ids.count - 1
            }
        }
    }

    /// The index of `face` (at `style`'s size and axes) in the result's font table, adding
    /// it on first use.
    mutating func fontNumber(_ face: FontFace, style: SpanStyle) -> Int {
        fontNumber(UsedFont(identity: face.identity, family: face.familyName, size: style.font.size,
                            variations: face.effectiveVariations(style.font)))
    }

    /// The index of `used` in the result's font table, adding it on first use.
    mutating func fontNumber(_ used: UsedFont) -> Int {
        if let known = fontIndex[used] { return known }
        fonts.append(used)
        fontIndex[used] = fonts.count - 1
        return fonts.count - 1
    }

    /// The style index at UTF-16 offset `offset` of the text (binary search in the runs).
    func styleIndex(at offset: Int) -> Int {
        let runs = request.styleRuns
        let i = runs.partitionPoint { $0.start <= offset }
        return i == 0 ? 0 : min(max(runs[i - 1].style, 0), request.styles.count - 1)
    }

    /// Analyses and shapes one paragraph of `whole`.
    mutating func shape(_ whole: UnsafeBufferPointer<UInt16>, _ range: ParagraphRange) throws -> ShapedParagraph {
        selector.previousFace = nil
        let text = UnsafeBufferPointer(rebasing: whole[range.start..<range.contentEnd])
        let n = text.count
        let bidi = try BidiParagraph(text: text, direction: request.paragraph.direction)
        guard n > 0 else {
            return ShapedParagraph(range: range, text: text, bidi: bidi, graphemes: [0], runs: [], advances: [], prefix: [0],
                                   breaks: .all(Boundaries(offsets: [0], mandatory: [false])), hangStart: [0], tabs: [],
                                   softHyphenEnds: [], endsWithHardBreak: false)
        }

        // Inline objects (attachment styles): each style run of one is a single cluster.
        let objects = attachmentRanges(range)
        // Clusters, their scripts, styles and fonts; runs of equal (face, script, level,
        // shaping style), shaped.
        var graphemes = GraphemeBreaks.boundaries(text)
        if !objects.isEmpty { graphemes = removingInside(objects, graphemes) }
        let scripts = resolveClusterScripts(text: text, clusterStarts: graphemes)
        currentGraphemes = graphemes
        var runs: [ShapedRun] = []
        var advances = [Double](repeating: 0, count: n)
        var runStart = 0
        var runKey: RunKey?
        var styleRun = request.styleRuns.partitionPoint { $0.start <= range.start } - 1
        // Captured by the font autoclosure below instead of `self`: capturing `self` would
        // copy the selector and make every font lookup copy its tables.
        let styles = request.styles
        let levels = bidi.levels
        // The run being gathered, for the fast path below: its style (-1: none, no fast path),
        // script and level, and the code units known to take its face as one-unit clusters
        // continuing it — the primary face's coverage bits (read only, below U+231A), or
        // the bits this request has learnt for a fallback face (`FaceBits`), held here
        // while the run lasts and handed back when it ends.
        var runStyle = -1
        var runScript: Int32 = 0
        var runLevel: UInt8 = 0
        var runIsPrimary = false
        var runBits: [UInt64] = []
        var runBitsSlot = -1
        // The arrays read per cluster through buffers, the request's style runs bound once.
        let styleRuns = request.styleRuns
        let lastStyle = request.styles.count - 1
        // The style of the clusters from the current style run's start, and where (relative
        // to the paragraph) the next style run starts: looked at again only there.
        func styleOf(_ run: Int) -> Int { run >= 0 ? min(max(styleRuns[run].style, 0), lastStyle) : 0 }
        func startAfter(_ run: Int) -> Int { run + 1 < styleRuns.count ? styleRuns[run + 1].start - range.start : .max }
        var styleIndex = styleOf(styleRun)
        var nextStyleStart = startAfter(styleRun)
        try graphemes.withUnsafeBufferPointer { g in
        try scripts.withUnsafeBufferPointer { sc in
        try levels.withUnsafeBufferPointer { lv in
        for c in 0..<(g.count - 1) {
            let start = Int(g[c]), end = Int(g[c + 1])
            if start >= nextStyleStart {
                while styleRun + 1 < styleRuns.count, styleRuns[styleRun + 1].start <= range.start + start {
                    styleRun += 1
                }
                styleIndex = styleOf(styleRun)
                nextStyleStart = startAfter(styleRun)
            }
            // The common case: one code unit continuing the run (same style, script and
            // level) that is known to take the run's face — what `face` would pick (see
            // `FontSelector.primaryCoverage(of:family:)` and `FaceBits`), without asking it.
            let continuesRun = runStyle == styleIndex && sc[c].code == runScript && lv[start] == runLevel
            if continuesRun, end == start + 1 {
                let unit = Int(text[start])
                if (!runIsPrimary || unit < 0x231A), unit >> 6 < runBits.count,
                   runBits[unit >> 6] & (1 << UInt64(unit & 63)) != 0 {
                    continue
                }
            }
            let family: Int
            if let known = styleFamily[styleIndex] {
                family = known
            } else {
                family = try selector.familyNumber(request.styles[styleIndex].font)
                styleFamily[styleIndex] = family
            }
            let face = try selector.face(text, start, end, script: sc[c], family: family,
                                         font: styles[styleIndex].font)
            let key = RunKey(face: face, script: sc[c], level: lv[start], shaping: shapingID[styleIndex],
                             styleIndex: styleIndex)
            if isAttachmentStyle[styleIndex] {
                // An inline object: no glyphs, its width as its one cluster's advance.
                if let current = runKey { try shapeRun(text, runStart, start, current, &runs, &advances) }
                advances[start] = request.styles[styleIndex].attachment?.width ?? 0
                runs.append(ShapedRun(start: start, end: end, face: face.takeUnretainedValue(), script: key.script, level: key.level,
                                      styleIndex: styleIndex, glyphs: []))
                runKey = nil
                faceBits.handBack(&runBits, slot: &runBitsSlot)
                runStyle = -1
                runStart = end
                continue
            }
            if end - start > maxShapedClusterLength {
                // A pathological cluster (a base with thousands of marks): shaping it whole
                // costs the shaper quadratic time finding each mark's base, so it is shaped
                // in pieces, still with one font.
                if let current = runKey { try shapeRun(text, runStart, start, current, &runs, &advances) }
                var piece = start
                while piece < end {
                    var pieceEnd = min(end, piece + maxShapedClusterLength)
                    if pieceEnd < end, text[pieceEnd] & 0xFC00 == 0xDC00 { pieceEnd -= 1 }
                    try shapeRun(text, piece, pieceEnd, key, &runs, &advances)
                    piece = pieceEnd
                }
                runKey = nil
                faceBits.handBack(&runBits, slot: &runBitsSlot)
                runStyle = -1
                runStart = end
                continue
            }
            if let current = runKey, current != key {
                try shapeRun(text, runStart, start, current, &runs, &advances)
                runStart = start
            }
            if runKey != key {
                faceBits.handBack(&runBits, slot: &runBitsSlot)
                runStyle = styleIndex
                runScript = key.script.code
                runLevel = key.level
                if let coverage = selector.primaryCoverage(of: face, family: family) {
                    runIsPrimary = true
                    runBits = coverage
                } else {
                    runIsPrimary = false
                    runBitsSlot = faceBits.take(family: family, script: key.script.code, face: face.takeUnretainedValue(),
                                                into: &runBits)
                }
                runKey = key
            }
            // A one-unit cluster in a fallback face's run: its face is now known for the
            // request (the run's face, as the cluster before it was in it).
            if !runIsPrimary, runBitsSlot >= 0, end == start + 1 { FaceBits.learn(Int(text[start]), in: &runBits) }
        }
        }
        }
        }
        faceBits.handBack(&runBits, slot: &runBitsSlot)
        if let current = runKey { try shapeRun(text, runStart, n, current, &runs, &advances) }

        // Letter spacing: after each cluster of a spaced style.
        for run in runs {
            let spacing = request.styles[run.styleIndex].letterSpacing
            guard spacing != 0, request.styles[run.styleIndex].attachment == nil else { continue }
            var c = graphemes.partitionPoint { Int($0) < run.start }
            while c < graphemes.count - 1, Int(graphemes[c]) < run.end {
                advances[Int(graphemes[c])] += spacing
                c += 1
            }
        }

        // One pass: tabs, soft hyphens, mandatory breaks (after U+000B, U+000C and U+2028),
        // whether an advance is negative, the advances' running sum, and where the hanging
        // spaces before each offset start (`LineFiller`'s `hangStart`), both written in place.
        var tabs: [Int] = []
        var softHyphens: Set<Int> = []
        var hardBreaks: [Int32] = []
        var negativeAdvance = false
        var hangStart: [Int32] = []
        let prefix = advances.withUnsafeBufferPointer { a in
            [Double](unsafeUninitializedCapacity: n + 1) { sums, count in
                hangStart = [Int32](unsafeUninitializedCapacity: n + 1) { hang, hangCount in
                    var sum = 0.0
                    var spacesStart: Int32 = 0
                    sums[0] = 0
                    hang[0] = 0
                    for i in 0..<n {
                        let u = text[i]
                        if u <= 0xAD {
                            if u == 0x09 {
                                tabs.append(i)
                            } else if u == 0xAD {
                                softHyphens.insert(i + 1)
                            } else if u == 0x0B || u == 0x0C, i + 1 < n {
                                hardBreaks.append(Int32(i + 1))
                            }
                        } else if u == 0x2028, i + 1 < n {
                            hardBreaks.append(Int32(i + 1))
                        }
                        // Most units lie between the ASCII space and U+1680, where no space hangs.
                        if u > 0x20 && u < 0x1680 || !isHangingSpace(u) { spacesStart = Int32(i + 1) }
                        hang[i + 1] = spacesStart
                        if a[i] < 0 { negativeAdvance = true }
                        sum += a[i]
                        sums[i + 1] = sum
                    }
                    hangCount = n + 1
                }
                count = n + 1
            }
        }
        let breaks: LineBreaks
        if request.paragraph.wrap == .word, engine.findsBreaksOnDemand, objects.isEmpty, tabs.isEmpty, softHyphens.isEmpty,
           !negativeAdvance {
            // A line's width here never shrinks as its end moves on (see `LineBreaks`).
            breaks = .onDemand(try LineBreakFinder(text, locale: locale, pool: engine.breakIterators), hard: hardBreaks)
        } else {
            var all = try breakOpportunities(text, graphemes: graphemes)
            if !objects.isEmpty {
                let kept = all.offsets.indices.filter { i in !objects.contains { $0.lowerBound < Int(all.offsets[i]) && Int(all.offsets[i]) < $0.upperBound } }
                all = Boundaries(offsets: kept.map { all.offsets[$0] }, mandatory: kept.map { all.mandatory[$0] })
            }
            breaks = .all(all)
        }
        return ShapedParagraph(range: range, text: text, bidi: bidi, graphemes: graphemes, runs: runs, advances: advances,
                               prefix: prefix, breaks: breaks,
                               hangStart: hangStart, tabs: tabs, softHyphenEnds: softHyphens,
                               endsWithHardBreak: isHardBreak(text[n - 1]))
    }

    /// The inline objects of a paragraph: each style run with an attachment style, relative.
    func attachmentRanges(_ range: ParagraphRange) -> [Range<Int>] {
        guard request.styles.contains(where: { $0.attachment != nil }) else { return [] }
        var result: [Range<Int>] = []
        let runs = request.styleRuns
        var i = max(0, runs.partitionPoint { $0.start <= range.start } - 1)
        while i < runs.count, runs[i].start < range.contentEnd {
            let style = min(max(runs[i].style, 0), request.styles.count - 1)
            let end = i + 1 < runs.count ? runs[i + 1].start : range.contentEnd
            if request.styles[style].attachment != nil {
                let a = max(runs[i].start, range.start) - range.start, b = min(end, range.contentEnd) - range.start
                if b > a { result.append(a..<b) }
            }
            i += 1
        }
        return result
    }

    /// `boundaries` without those strictly inside `objects`.
    func removingInside(_ objects: [Range<Int>], _ boundaries: [Int32]) -> [Int32] {
        boundaries.filter { b in !objects.contains { $0.lowerBound < Int(b) && Int(b) < $0.upperBound } }
    }

    /// Where lines may break, by the wrap mode: ICU's opportunities (`word`), every grapheme
    /// boundary (`char`), or only mandatory breaks (`none`).
    private func breakOpportunities(_ text: UnsafeBufferPointer<UInt16>, graphemes: [Int32]) throws -> Boundaries {
        switch request.paragraph.wrap {
        case .word:
            return try engine.breakIterators.boundaries(.line, of: text, locale: locale)
        case .char, .none:
            let isHard = { (b: Int32) in b > 0 && isHardBreak(text[Int(b) - 1]) }
            let offsets = request.paragraph.wrap == .char
                ? graphemes
                : [0] + (1..<text.count).map(Int32.init).filter(isHard) + [Int32(text.count)]
            return Boundaries(offsets: offsets, mandatory: offsets.map(isHard))
        }
    }

    /// The hyphen a soft hyphen shows at a line's end: U+2010 HYPHEN, else U+002D, in `face`.
    func hyphen(in face: FontFace?, size: Double) -> (glyph: UInt32, advance: Double)? {
        guard let face else { return nil }
        return face.advance(of: 0x2010, size: size) ?? face.advance(of: 0x2D, size: size)
    }

    /// Where the word of `text` starting at `w` ends (at most at `end`): after the spaces
    /// that follow it.
    @inline(__always) private func wordEnd(_ text: UnsafeBufferPointer<UInt16>, _ w: Int, _ end: Int) -> Int {
        var e = w
        while e < end, text[e] != 0x20 { e += 1 }
        while e < end, text[e] == 0x20 { e += 1 }
        // A mark on a space: keep it whole. (After a space only an extending or spacing mark
        // or a joiner continues a cluster, none of them below U+0300.)
        while e < end, text[e] >= 0x300, !isGraphemeBoundary(e) {
            e += 1
            while e < end, text[e] != 0x20 { e += 1 }
            while e < end, text[e] == 0x20 { e += 1 }
        }
        return e
    }

    /// The glyphs of the word at `w` — `all[first...]`, clusters relative to `w` — moved to
    /// the paragraph's offsets and their advances added, through pointers; right to left,
    /// the word noted in `rtlWords`.
    @inline(__always) private static func place(_ all: inout [ShapedGlyph], from first: Int, at w: Int, advances: inout [Double],
                                                rtl: Bool, rtlWords: inout [Range<Int>]) {
        let offset = Int32(w)
        all.withUnsafeMutableBufferPointer { glyphs in
            advances.withUnsafeMutableBufferPointer { advances in
                for g in first..<glyphs.count {
                    glyphs[g].cluster &+= offset
                    let cluster = Int(glyphs[g].cluster)
                    if cluster < advances.count { advances[cluster] += Double(glyphs[g].advance) }
                }
            }
        }
        if rtl { rtlWords.append(first..<all.count) }
    }

    /// What the words of a run shape with (`shapeRun`).
    private struct RunWords {
        let face: FontFace
        let font: OpaquePointer
        let features: [hb_feature_t]
        let script: Script
        let level: UInt8
        let size: Double
        let cache: ShapeCache
        let context: Int
        var rtl: Bool { level & 1 == 1 }
    }

    /// `text[s..<e]` shaped on its own, as a cached word is (clusters relative to `s`).
    private func shapeAlone(_ text: UnsafeBufferPointer<UInt16>, _ s: Int, _ e: Int, _ run: RunWords,
                            markingSafeBreaks: Bool = false) -> [ShapedGlyph] {
        let piece = UnsafeBufferPointer(rebasing: text[s..<e])
        var scratch = [Double](repeating: 0, count: piece.count)
        return shaping.shape(paragraph: piece, start: 0, end: piece.count, face: run.face, font: run.font,
                             features: run.features, script: run.script, level: run.level, language: language,
                             size: run.size, bot: s == 0, eot: e == text.count, markingSafeBreaks: markingSafeBreaks,
                             advances: &scratch)
    }

    /// After a miss for the word `text[w..<e]` (whose key is `wordKey`): shapes it and keeps
    /// it, with the missing words after it in the run (up to `runEnd`) — in one call, then
    /// cut apart where HarfBuzz says the cut changes nothing and kept one by one, each
    /// exactly as shaping it alone would give it (a word whose edge is not safe to cut is
    /// shaped alone). A call per word costs HarfBuzz ~1.6 times the time for the same text:
    /// each lookup of the font runs over each word. Appends their glyphs to `all`, placed as
    /// `place` places them, and returns where the words shaped end. (Out of line: the loop
    /// over found words stays small.)
    @inline(never)
    private func shapeMissingWords(_ text: UnsafeBufferPointer<UInt16>, _ w: Int, _ e: Int, _ wordKey: ShapeCache.WordKey,
                                   runEnd end: Int, _ run: RunWords, all: inout [ShapedGlyph], advances: inout [Double],
                                   rtlWords: inout [Range<Int>]) -> Int {
        let cache = run.cache, rtl = run.rtl
        var missing = [(start: w, end: e, key: wordKey)]
        var next = e
        while cache.shapesMissingWordsTogether, next < end, missing.count < Self.maxWordsShapedTogether {
            let nextEnd = wordEnd(text, next, end)
            guard nextEnd - next <= ShapeCache.maxWordLength else { break }
            let nextWord = UnsafeBufferPointer(rebasing: text[next..<nextEnd])
            let nextKey = cache.key(context: run.context, bot: false, eot: nextEnd == text.count, text: nextWord)
            if cache.contains(nextKey, text: nextWord) { break }
            missing.append((next, nextEnd, nextKey))
            next = nextEnd
        }
        if missing.count == 1 {
            let first = all.count
            let made = shapeAlone(text, w, e, run)
            cache.keep(wordKey, text: UnsafeBufferPointer(rebasing: text[w..<e]), glyphs: made[...], countingMiss: false)
            all += made
            Self.place(&all, from: first, at: w, advances: &advances, rtl: rtl, rtlWords: &rtlWords)
            return e
        }
        let together = shapeAlone(text, w, next, run, markingSafeBreaks: true)
        cache.countShapedTogether(missing.count)
        // Each word's glyphs are one stretch of `together`: clusters run up in visual order
        // left to right, down right to left (the first word's glyphs last).
        var cursor = rtl ? together.count : 0
        for (k, m) in missing.enumerated() {
            let localEnd = Int32(m.end - w)
            let glyphs: Range<Int>
            if rtl {
                var a = cursor
                while a > 0, together[a - 1].cluster < localEnd { a -= 1 }
                glyphs = a..<cursor
                cursor = a
            } else {
                var b = cursor
                while b < together.count, together[b].cluster < localEnd { b += 1 }
                glyphs = cursor..<b
                cursor = b
            }
            let first = all.count
            let word = UnsafeBufferPointer(rebasing: text[m.start..<m.end])
            if (k == 0 || shaping.safeToBreak[m.start - w]) && (k == missing.count - 1 || shaping.safeToBreak[m.end - w]) {
                all += together[glyphs]
                let shift = Int32(m.start - w)
                all.withUnsafeMutableBufferPointer { all in
                    for g in first..<all.count { all[g].cluster &-= shift }
                }
                cache.keep(m.key, text: word, glyphs: all[first...], countingMiss: k > 0)
            } else {
                let made = shapeAlone(text, m.start, m.end, run)
                cache.keep(m.key, text: word, glyphs: made[...], countingMiss: k > 0)
                all += made
            }
            Self.place(&all, from: first, at: m.start, advances: &advances, rtl: rtl, rtlWords: &rtlWords)
        }
        return next
    }

    /// Most missing words of a run shaped together in one call (`shapeRun`).
    static let maxWordsShapedTogether = 64

    private mutating func shapeRun(_ text: UnsafeBufferPointer<UInt16>, _ start: Int, _ end: Int, _ key: RunKey,
                          _ runs: inout [ShapedRun], _ advances: inout [Double]) throws {
        let face = key.face.takeUnretainedValue()  // (one count per run, not per cluster)
        let styleIndex = key.styleIndex
        // Fields read in place: binding the style would copy it (and retain its strings).
        let size = request.styles[styleIndex].font.size
        let variations = face.effectiveVariations(request.styles[styleIndex].font)
        let instance = face.instance(variations: variations)
        let font = instance?.font ?? face.font
        let glyphs = try withExtendedLifetime(instance) { () throws -> [ShapedGlyph] in
            let cache = engine.shapeCache
            guard cache.capacity > 0 else {
                return shaping.shape(paragraph: text, start: start, end: end, face: face, font: font,
                                     features: features[styleIndex], script: key.script, level: key.level,
                                     language: language, size: size, advances: &advances)
            }
            // Word by word (a word: text up to and with the spaces after it, split only at a
            // grapheme boundary), each looked up in the shape cache; words too long to cache
            // are shaped in the paragraph's context as before.
            let rtl = key.level & 1 == 1
            let context = contextNumber(face: face, styleIndex: styleIndex, script: key.script, rtl: rtl,
                                        variations: variations, cache: cache)
            // Left to right: glyphs go straight into the run. Right to left: each word's
            // glyphs (visual order within the word) are kept, then laid out last word first.
            var all: [ShapedGlyph] = []
            if needsGlyphs { all.reserveCapacity(end - start) }
            var rtlWords: [Range<Int>] = []
            /// The key of the word `text[s..<e]` (nil when too long to cache).
            func keyOf(_ s: Int, _ e: Int) -> ShapeCache.WordKey? {
                e - s > ShapeCache.maxWordLength ? nil
                    : cache.key(context: context, bot: s == 0, eot: e == text.count,
                                text: UnsafeBufferPointer(rebasing: text[s..<e]))
            }
            // Each word's key is made a word ahead and its slot in the cache prefetched then
            // (`ShapeCache.prefetch`), so that it is on its way while this word is looked up.
            var w = start
            var e = wordEnd(text, w, end)
            var thisKey = keyOf(w, e)
            while w < end {
                let nextEnd = e < end ? wordEnd(text, e, end) : end
                let nextKey = e < end ? keyOf(e, nextEnd) : nil
                if let nextKey { cache.prefetch(nextKey) }
                let first = all.count
                var next = e
                if let wordKey = thisKey {
                    let word = UnsafeBufferPointer(rebasing: text[w..<e])
                    if !needsGlyphs, cache.addAdvances(wordKey, text: word, at: w, to: &advances) {
                        // Found: its advances added, its glyphs left in the cache.
                    } else if needsGlyphs, cache.appendGlyphs(wordKey, text: word, to: &all) {
                        Self.place(&all, from: first, at: w, advances: &advances, rtl: rtl, rtlWords: &rtlWords)
                    } else {
                        // A word to shape: the request's limits are asked here, where the work
                        // is (a paragraph of new words is one long run).
                        if let stop = request.shouldStop?() { throw stop }
                        // (What the run shapes with, bundled only here: kept across the loop, its
                        // references would be counted for every run.)
                        let run = RunWords(face: face, font: font, features: features[styleIndex], script: key.script,
                                           level: key.level, size: size, cache: cache, context: context)
                        next = shapeMissingWords(text, w, e, wordKey, runEnd: end, run, all: &all, advances: &advances,
                                                 rtlWords: &rtlWords)
                    }
                } else {
                    if let stop = request.shouldStop?() { throw stop }
                    all += shaping.shape(paragraph: text, start: w, end: e, face: face, font: font,
                                         features: features[styleIndex], script: key.script, level: key.level,
                                         language: language, size: size, advances: &advances)
                    if rtl { rtlWords.append(first..<all.count) }
                }
                w = next
                if next == e {
                    (e, thisKey) = (nextEnd, nextKey)
                } else if w < end {
                    // (Words after this one were shaped with it: the next is further on.)
                    e = wordEnd(text, w, end)
                    thisKey = keyOf(w, e)
                }
            }
            // (Glyphs of words shaped here, without `needsGlyphs`, are not kept either.)
            if !needsGlyphs { return [] }
            if rtl, rtlWords.count > 1 {
                var visual: [ShapedGlyph] = []
                visual.reserveCapacity(all.count)
                for word in rtlWords.reversed() { visual += all[word] }
                return visual
            }
            return all
        }
        runs.append(ShapedRun(start: start, end: end, face: face, script: key.script, level: key.level,
                              styleIndex: styleIndex, glyphs: glyphs))
    }

    /// The shape cache's number for a run's context (face, style, script, direction), asked of
    /// the cache once per request: the last few are compared in a small list before the
    /// request's table (runs alternate between a handful of contexts).
    private mutating func contextNumber(face: FontFace, styleIndex: Int, script: Script, rtl: Bool,
                                        variations: [FontVariation], cache: ShapeCache) -> Int {
        let memoKey = ContextMemoKey(face: face, style: styleIndex, script: script.code, rtl: rtl)
        for entry in recentContexts where entry.key == memoKey { return entry.number }
        let context: Int
        if !contextMemo.isEmpty, let known = contextMemo[memoKey] {
            context = known
        } else {
            let style = request.styles[styleIndex]
            context = cache.contextNumber(ShapeCache.Context(
                face: face.identity, variations: variations, size: style.font.size, features: style.font.features,
                spaced: style.letterSpacing != 0, script: script.code, rtl: rtl, language: request.language))
        }
        if recentContexts.count < 8 {
            recentContexts.append((memoKey, context))
        } else {
            // (The one it replaces is kept in the table: a request seldom has more than eight.)
            let replaced = recentContexts[nextRecentContext]
            contextMemo[replaced.key] = replaced.number
            recentContexts[nextRecentContext] = (memoKey, context)
            nextRecentContext = (nextRecentContext + 1) & 7
        }
        return context
    }

    private func isGraphemeBoundary(_ offset: Int) -> Bool {
        let i = currentGraphemes.partitionPoint { Int($0) < offset }
        return i < currentGraphemes.count && Int(currentGraphemes[i]) == offset
    }
}

/// Per request, the code units seen to take a fallback face as one-unit clusters: one bit
/// table per (family, script, face), so that a later cluster of the same unit continuing a
/// run in that face skips `FontSelector.face`. Sound because, for a one-unit cluster,
/// `face` depends only on the family, the script, the unit and the face of the cluster
/// before (which, continuing the run, is the run's face). Bounded: at most `maxTables`
/// tables of at most 1,024 words (the BMP) each. Keys hold their faces (an address freed and
/// reused by another face during the request would otherwise find the first one's bits).
struct FaceBits {
    private var keys: [(family: Int, script: Int32, face: FontFace)] = []
    private var tables: [[UInt64]] = []
    static let maxTables = 32

    /// Moves the table for (`family`, `script`, `face`) into `bits` (made on first use) and
    /// returns its slot, or -1 (and empty bits) when the request already has `maxTables`.
    mutating func take(family: Int, script: Int32, face: FontFace, into bits: inout [UInt64]) -> Int {
        var slot = keys.firstIndex { $0.family == family && $0.script == script && $0.face === face } ?? -1
        if slot < 0 {
            guard keys.count < Self.maxTables else { bits = []; return -1 }
            keys.append((family, script, face))
            tables.append([])
            slot = keys.count - 1
        }
        swap(&bits, &tables[slot])
        return slot
    }

    /// Moves `bits` back into its slot (if it came from one) and leaves `bits` empty.
    mutating func handBack(_ bits: inout [UInt64], slot: inout Int) {
        if slot >= 0 { swap(&bits, &tables[slot]) }
        bits = []
        slot = -1
    }

    /// Sets `unit`'s bit, growing the table as far as it.
    static func learn(_ unit: Int, in bits: inout [UInt64]) {
        let word = unit >> 6
        if word >= bits.count { bits.append(contentsOf: repeatElement(0, count: word + 1 - bits.count)) }
        bits[word] |= 1 << UInt64(unit & 63)
    }
}

/// What decides a run's shape cache context within one request (the request's language is
/// fixed; the face object and style fix face, axes, size, features and spacing). Holds the
/// face, so that its address cannot be reused by another face while the request keeps the key.
struct ContextMemoKey: Hashable {
    var face: FontFace
    var style: Int
    var script: Int32
    var rtl: Bool

    static func == (a: ContextMemoKey, b: ContextMemoKey) -> Bool {
        a.face === b.face && a.style == b.style && a.script == b.script && a.rtl == b.rtl
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(face))
        hasher.combine(style)
        hasher.combine(script)
        hasher.combine(rtl)
    }
}

/// What keeps a run together: one face, one script, one bidi level, one shaping style
/// (font, size, features, axes, letter spacing, baseline offset). Colors, decorations and
/// links do not split shaping.
struct RunKey: Equatable {
    /// Unretained, as `FontSelector.face` hands it out (its selector holds it).
    var face: Unmanaged<FontFace>
    var script: Script
    var level: UInt8
    /// The shaping identity of the style (see `ParagraphContext.shapingID`).
    var shaping: Int
    /// The first style index seen with this shaping identity (for its font and features).
    var styleIndex: Int

    static func == (a: RunKey, b: RunKey) -> Bool {
        a.face.toOpaque() == b.face.toOpaque() && a.script == b.script && a.level == b.level && a.shaping == b.shaping
    }
}

extension ShapedRun {
    /// The glyphs drawing `start..<end` (paragraph offsets at cluster boundaries): a
    /// contiguous slice, since clusters rise left to right in a left-to-right run and fall in
    /// a right-to-left one. Found by binary search.
    func glyphRange(_ start: Int, _ end: Int) -> Range<Int> {
        if level & 1 == 0 {
            let lo = glyphs.partitionPoint { Int($0.cluster) < start }
            let hi = glyphs.partitionPoint { Int($0.cluster) < end }
            return lo..<max(lo, hi)
        } else {
            let lo = glyphs.partitionPoint { Int($0.cluster) >= end }
            let hi = glyphs.partitionPoint { Int($0.cluster) >= start }
            return lo..<max(lo, hi)
        }
    }
}

extension Array {
    /// The first index whose element is not `belongsBefore` (the elements must be
    /// partitioned: all that belong before come first). Binary search.
    package func partitionPoint(_ belongsBefore: (Element) -> Bool) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if belongsBefore(self[mid]) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
