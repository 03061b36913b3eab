import CHarfBuzz

/// Longest grapheme cluster, in UTF-16 units, shaped in one piece (Unicode's stream-safe
/// format allows 30 combining marks in a row; real text stays far below this).
let maxShapedClusterLength = 64

/// Per-request state reused across its paragraphs: the fallback list, a HarfBuzz buffer,
/// the fonts chosen for single code points so far, and the table of fonts the result
/// refers to.
struct ParagraphContext {
    let engine: TextLayoutEngine
    let request: LayoutRequest
    let fallback: FallbackList
    let shaping = ShapingBuffer()
    let language: hb_language_t?
    let features: [hb_feature_t]
    let locale: String
    let primaryFace: FontFace?
    /// Fallback lists for the scripts met so far, sorted for the script's language.
    private var scriptFallbacks: [Int32: FallbackList] = [:]
    /// Faces chosen for single code points so far, per script.
    private var faceForScalar: [ScalarKey: FontFace] = [:]
    /// The face of the cluster before, in this paragraph.
    private var previousFace: FontFace?
    /// Fonts the result's runs refer to, by index.
    var fonts: [UsedFont] = []
    private var fontIndex: [FaceIdentity: Int] = [:]

    init(engine: TextLayoutEngine, request: LayoutRequest, fallback: FallbackList) {
        self.engine = engine
        self.request = request
        self.fallback = fallback
        self.language = harfBuzzLanguage(request.language)
        self.features = harfBuzzFeatures(request.font.features)
        self.locale = icuLocale(request.language)
        self.primaryFace = fallback.face(at: fallback.candidate(forCluster: CollectionOfOne(UInt32(0x20))))
    }

    /// The face for the cluster `start..<end` of `text`, whose script is `script`: the
    /// requested family's own face when it covers the cluster (and the cluster does not ask
    /// for emoji), else the first face covering it in fontconfig's fallback order for the
    /// script's language.
    mutating func face(_ text: UnsafeBufferPointer<UInt16>, _ start: Int, _ end: Int, script: Script) throws -> FontFace {
        let (first, _) = decodeUTF16(text, at: start)
        // A space, a control or format character, or a variation selector never picks a
        // font: it stays in the font of the text before it, as in Pango (every font has
        // the ASCII space, and HarfBuzz falls back to it for the others).
        if let previousFace, keepsPreviousFont(first) { return previousFace }
        let chosen = try chooseFace(text, start, end, script: script)
        previousFace = chosen
        return chosen
    }

    private mutating func chooseFace(_ text: UnsafeBufferPointer<UInt16>, _ start: Int, _ end: Int,
                                     script: Script) throws -> FontFace {
        let (first, width) = decodeUTF16(text, at: start)
        if start + width == end {
            // Below U+231A no character defaults to emoji presentation.
            if first < 0x231A, fallback.covers(0, first), let primaryFace { return primaryFace }
            let key = ScalarKey(scalar: first, script: script.code)
            if let known = faceForScalar[key] { return known }
            let found = try choose(CollectionOfOne(first), script: script)
            faceForScalar[key] = found
            return found
        }
        var scalars: [UInt32] = []
        var i = start
        // Coverage is judged on the cluster's first code points: enough for any real cluster,
        // and bounded for hostile ones.
        while i < end, scalars.count < maxShapedClusterLength {
            let (s, w) = decodeUTF16(text, at: i)
            scalars.append(s)
            i += w
        }
        return try choose(scalars, script: script)
    }

    private mutating func choose(_ scalars: some Collection<UInt32>, script: Script) throws -> FontFace {
        let presentation = EmojiPresentation(cluster: scalars)
        if presentation != .emoji, let primaryFace,
           scalars.allSatisfy({ isIgnorableForCoverage($0) || fallback.covers(0, $0) }) {
            return primaryFace
        }
        let list = try fallbackList(for: script)
        let index = list.candidate(forCluster: scalars, presentation: presentation)
        guard let face = list.face(at: index) ?? primaryFace else {
            throw EngineError.noFontsAvailable(family: request.font.family)
        }
        return face
    }

    /// The fallback list for a script: sorted by fontconfig for the script's language (the
    /// request's own when it writes in that script), one sort per (family, language), cached.
    private mutating func fallbackList(for script: Script) throws -> FallbackList {
        if let known = scriptFallbacks[script.code] { return known }
        let language = script.language(preferring: request.language)
        let list = language == request.language
            ? fallback
            : try engine.fonts.fallbackList(for: request.font, language: language)
        scriptFallbacks[script.code] = list
        return list
    }

    /// The index of `face` in the result's font table, adding it on first use.
    mutating func fontNumber(_ face: FontFace) -> Int {
        if let known = fontIndex[face.identity] { return known }
        fonts.append(UsedFont(identity: face.identity, family: face.familyName, size: request.font.size,
                              variations: face.effectiveVariations(request.font)))
        fontIndex[face.identity] = fonts.count - 1
        return fonts.count - 1
    }

    /// Lays out one paragraph below `y`, appending its lines and moving `y` past them.
    mutating func layoutParagraph(text whole: UnsafeBufferPointer<UInt16>, _ range: ParagraphRange,
                                  y: inout Double, into lines: inout [LineBox]) throws {
        previousFace = nil
        let size = request.font.size
        let text = UnsafeBufferPointer(rebasing: whole[range.start..<range.contentEnd])
        let n = text.count
        let bidi = try BidiParagraph(text: text, direction: request.direction)

        guard n > 0 else {
            let metrics = primaryFace?.metrics(size: size) ?? .zero
            lines.append(makeLine(range.start, range.end, width: 0, metrics: metrics, rtl: bidi.isRTL, y: &y))
            return
        }

        // Clusters, their scripts and fonts; runs of equal (font, script, level), shaped.
        let graphemes = try engine.breakIterators.boundaries(.grapheme, of: text, locale: "").offsets
        let scripts = resolveClusterScripts(text: text, clusterStarts: graphemes)
        var runs: [ShapedRun] = []
        var advances = [Double](repeating: 0, count: n)
        var runStart = 0
        var runKey: RunKey?
        for c in 0..<(graphemes.count - 1) {
            let start = Int(graphemes[c]), end = Int(graphemes[c + 1])
            let face = try face(text, start, end, script: scripts[c])
            let key = RunKey(face: face, script: scripts[c], level: bidi.levels[start])
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
                runStart = end
                continue
            }
            if let current = runKey, current != key {
                try shapeRun(text, runStart, start, current, &runs, &advances)
                runStart = start
            }
            runKey = key
        }
        if let current = runKey { try shapeRun(text, runStart, n, current, &runs, &advances) }

        // Break opportunities and greedy filling.
        var prefix = [Double](repeating: 0, count: n + 1)
        for i in 0..<n { prefix[i + 1] = prefix[i] + advances[i] }
        var breaker = LineBreaker(prefix: prefix, hangStart: hangingSpaceStarts(text),
                                  breaks: try breakOpportunities(text, graphemes: graphemes), graphemes: graphemes)
        var softHyphens: Set<Int> = []
        for i in 0..<n where text[i] == 0xAD { softHyphens.insert(i + 1) }
        if !softHyphens.isEmpty {
            breaker.softHyphenEnds = softHyphens
            breaker.hyphenWidth = hyphen(in: primaryFace)?.advance ?? 0
        }
        let ranges = breaker.lines(maxWidth: request.wrap == .none ? nil : request.width)

        // Line boxes: metrics from the faces of the runs each line touches; runs in visual
        // order when asked for.
        var r = 0
        for (index, lineRange) in ranges.enumerated() {
            var metrics = LineMetrics.zero
            while r < runs.count, runs[r].end <= lineRange.lowerBound, runs[r].end < n { r += 1 }
            var k = r
            while k < runs.count, runs[k].start < max(lineRange.upperBound, lineRange.lowerBound + 1) {
                metrics.formUnion(runs[k].face.metrics(size: size))
                k += 1
            }
            if metrics.ascent == 0, metrics.descent == 0, let face = primaryFace {
                metrics = face.metrics(size: size)
            }
            let isLast = index == ranges.count - 1
            var line = makeLine(range.start + lineRange.lowerBound,
                                isLast ? range.end : range.start + lineRange.upperBound,
                                width: breaker.visibleWidth(lineRange.lowerBound, lineRange.upperBound),
                                metrics: metrics, rtl: bidi.isRTL, y: &y)
            line.hyphenated = breaker.showsHyphen(lineRange.upperBound)
            if request.detail >= .runs {
                line.runs = try visualRuns(lineRange, of: runs, bidi: bidi, breaker: breaker,
                                           hyphenated: line.hyphenated, paragraphStart: range.start)
            }
            lines.append(line)
        }
    }

    /// Where lines may break, by the request's wrap mode: ICU's opportunities (`word`), every
    /// grapheme boundary (`char`), or only mandatory breaks (`none`).
    private func breakOpportunities(_ text: UnsafeBufferPointer<UInt16>, graphemes: [Int32]) throws -> Boundaries {
        switch request.wrap {
        case .word:
            return try engine.breakIterators.boundaries(.line, of: text, locale: locale)
        case .char, .none:
            let isHard = { (b: Int32) in b > 0 && [0x0B, 0x0C, 0x2028].contains(text[Int(b) - 1]) }
            let offsets = request.wrap == .char
                ? graphemes
                : [0] + (1..<text.count).map(Int32.init).filter(isHard) + [Int32(text.count)]
            return Boundaries(offsets: offsets, mandatory: offsets.map(isHard))
        }
    }

    /// The hyphen a soft hyphen shows at a line's end: U+2010 HYPHEN, else U+002D, in `face`.
    private func hyphen(in face: FontFace?) -> (glyph: UInt32, advance: Double)? {
        guard let face else { return nil }
        return face.advance(of: 0x2010, size: request.font.size) ?? face.advance(of: 0x2D, size: request.font.size)
    }

    /// The runs of one line, left to right: each bidi visual run cut where the shaped runs
    /// (fonts) change, with x positions from the line's left edge (trailing white space of a
    /// right-to-left line sits left of it) and, with glyph detail, the glyphs.
    private mutating func visualRuns(_ lineRange: Range<Int>, of runs: [ShapedRun], bidi: BidiParagraph,
                                     breaker: LineBreaker, hyphenated: Bool, paragraphStart: Int) throws -> [LineRun] {
        let (ls, le) = (lineRange.lowerBound, lineRange.upperBound)
        guard le > ls else { return [] }
        let prefix = breaker.prefix
        let hanging = prefix[le] - prefix[max(ls, Int(breaker.hangStart[le]))]
        var x = bidi.isRTL ? -hanging : 0
        var result: [LineRun] = []
        for visual in try bidi.visualRuns(ls, le) {
            // Shaped runs overlapping the visual run, in logical order.
            var first = runs.partitionPoint { $0.end <= visual.start }
            var pieces: [(run: Int, start: Int, end: Int)] = []
            while first < runs.count, runs[first].start < visual.end {
                pieces.append((first, max(visual.start, runs[first].start), min(visual.end, runs[first].end)))
                first += 1
            }
            if visual.isRTL { pieces.reverse() }
            for piece in pieces {
                let shaped = runs[piece.run]
                var width = prefix[piece.end] - prefix[piece.start]
                let showsHyphen = hyphenated && piece.end == le
                if showsHyphen { width += breaker.hyphenWidth }
                var glyphs: [PositionedGlyph] = []
                if request.detail == .glyphs {
                    for g in shaped.glyphs[shaped.glyphRange(piece.start, piece.end)] {
                        var glyph = PositionedGlyph(id: g.id, cluster: paragraphStart + Int(g.cluster), advance: Double(g.advance),
                                                    xOffset: Double(g.xOffset), yOffset: Double(g.yOffset))
                        if showsHyphen, Int(g.cluster) == le - 1, let hyphen = hyphen(in: shaped.face) {
                            glyph.id = hyphen.glyph
                            glyph.advance = breaker.hyphenWidth
                        }
                        glyphs.append(glyph)
                    }
                }
                let font = fontNumber(shaped.face)
                let start = paragraphStart + piece.start, end = paragraphStart + piece.end
                if var last = result.last, last.font == font, last.level == visual.level,
                   visual.isRTL ? last.start == end : last.end == start {
                    // Same font and direction as the run before it (only the script changed):
                    // one run for the client.
                    last.start = min(last.start, start)
                    last.end = max(last.end, end)
                    last.width += width
                    last.glyphs += glyphs
                    result[result.count - 1] = last
                } else {
                    result.append(LineRun(start: start, end: end, font: font, level: visual.level, x: x, width: width,
                                          glyphs: glyphs))
                }
                x += width
            }
        }
        return result
    }

    private func shapeRun(_ text: UnsafeBufferPointer<UInt16>, _ start: Int, _ end: Int, _ key: RunKey,
                          _ runs: inout [ShapedRun], _ advances: inout [Double]) throws {
        let face = key.face
        let instance = face.instance(variations: face.effectiveVariations(request.font))
        let glyphs = withExtendedLifetime(instance) {
            shaping.shape(paragraph: text, start: start, end: end, face: face, font: instance?.font ?? face.font,
                          features: features, script: key.script, level: key.level, language: language,
                          size: request.font.size, advances: &advances)
        }
        runs.append(ShapedRun(start: start, end: end, face: face, script: key.script, level: key.level, glyphs: glyphs))
    }

    private func makeLine(_ start: Int, _ end: Int, width: Double, metrics: LineMetrics, rtl: Bool,
                          y: inout Double) -> LineBox {
        let height = metrics.ascent + metrics.descent + metrics.lineGap
        let line = LineBox(start: start, end: end, x: 0, y: y, width: width, height: height,
                           baseline: y + metrics.lineGap / 2 + metrics.ascent,
                           ascent: metrics.ascent, descent: metrics.descent, isRTL: rtl, hyphenated: false, runs: [])
        y += height
        return line
    }
}

/// Whether a cluster starting with `scalar` keeps the font before it: space separators
/// (but OGHAM SPACE MARK, which has ink), controls, format characters, variation selectors.
func keepsPreviousFont(_ scalar: UInt32) -> Bool {
    switch scalar {
    case 0x20, 0xA0, 0x2000...0x200F, 0x2028...0x202F, 0x205F...0x206F, 0x3000, 0xFEFF, 0xFE00...0xFE0F,
         0xE0001...0xE007F, 0xE0100...0xE01EF, 0...0x1F, 0x7F...0x9F, 0xAD, 0x061C, 0x180E:
        return true
    default:
        return false
    }
}

/// What keeps a run together: one face, one script, one bidi level.
struct RunKey: Equatable {
    var face: FontFace
    var script: Script
    var level: UInt8

    static func == (a: RunKey, b: RunKey) -> Bool { a.face === b.face && a.script == b.script && a.level == b.level }
}

struct ScalarKey: Hashable {
    var scalar: UInt32
    var script: Int32
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
    /// partitioned: all that belong before come first).
    func partitionPoint(_ belongsBefore: (Element) -> Bool) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if belongsBefore(self[mid]) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
