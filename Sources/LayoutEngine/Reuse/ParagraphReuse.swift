import Glibc

/// What a later layout of edited text, or of the same text with other line parameters, can
/// take over from this one: each paragraph's shaping, its lines (as laid out, before
/// alignment, offsets and y relative to the paragraph), the advances and boundaries geometry
/// queries need, and the fonts its runs use. A paragraph whose text and styles did not change
/// is not shaped again; under the same line parameters it is not broken again either, only
/// moved.
public struct ReusableLayout: Sendable {
    /// Everything of the request but its text, style runs and style table: reuse needs it
    /// unchanged. (Each paragraph compares the styles it uses itself: the table grows with
    /// every new style, an attachment's say, anywhere in the text.)
    struct Key: Equatable, Sendable {
        var width: Double?
        /// The request's base style (its font sizes the paragraph's empty lines and indents).
        var baseStyle: SpanStyle?
        var language: String
        var paragraph: ParagraphFingerprint
        var insets: EdgeInsets
        var detail: LayoutDetail
    }

    struct Paragraph: Sendable {
        var text: [UInt16]
        /// Style runs relative to the paragraph's start (the style at its start first), and
        /// each run's style (what its number meant in the layout that made the lines).
        var styleRuns: [StyleRun]
        var styles: [SpanStyle]
        var isFirst: Bool
        /// The lines as finished (aligned, runs placed), in the layout's coordinates: the
        /// paragraph started at UTF-16 offset `start` and its first line's top at `top`. A
        /// later layout that finds the paragraph at the same place takes them unchanged.
        var lines: [AssembledLine]
        var start: Int
        var top: Double
        /// Room each line's slot leaves unused, for the used width.
        var reserved: [Double]
        /// The fonts the runs use, in first-use order, and the index each has in the
        /// layout's font table (what the runs' `font` fields hold).
        var fonts: [UsedFont]
        var fontIndices: [Int]
        /// Its geometry as laid out (nil when the layout kept none).
        var geometry: ParagraphGeometry?
        /// The bottom of the paragraph's last line, relative to its first line's top.
        var height: Double
        /// How many runs and glyphs its lines hold.
        var runCount: Int
        var glyphCount: Int
        /// Its analysis and shaping (nil when the layout kept none).
        var shaping: KeptShaping?
    }

    /// The line parameters the lines were made under; nil when they cannot be taken over
    /// (exclusions and line limits tie lines to their place in the whole text).
    var key: Key?
    var shapingKey: ShapingKey
    var paragraphs: [Paragraph]

    /// How many paragraphs the layout had.
    public var paragraphCount: Int { paragraphs.count }
}

/// The paragraph style as a comparable value.
struct ParagraphFingerprint: Equatable, Sendable {
    var values: [Double]
    var names: [String]

    init(_ s: ParagraphStyle) {
        values = [s.lineSpacing, s.lineHeightMultiple ?? -1, s.minimumLineHeight ?? -1, s.maximumLineHeight ?? -1,
                  s.paragraphSpacing, s.paragraphSpacingBefore, s.headIndent, s.firstLineIndent, s.tailIndent,
                  s.defaultTabInterval, Double(s.hyphenationMinimum.before), Double(s.hyphenationMinimum.after),
                  Double(s.hyphenationMinimum.word)] + s.tabStops.flatMap { [$0.location] }
        names = [s.align.rawValue, s.direction.rawValue, s.wrap.rawValue, s.wrapStyle.rawValue, s.hyphenation.rawValue]
            + s.tabStops.map(\.alignment.rawValue)
    }
}

extension LayoutRequest {
    /// The reuse key, or nil when this request's lines cannot be reused paragraph by
    /// paragraph (exclusions and line limits tie lines to their place in the whole text).
    var reuseKey: ReusableLayout.Key? {
        guard exclusions.isEmpty, maxLines == nil else { return nil }
        return ReusableLayout.Key(width: width, baseStyle: styles.first, language: language,
                                  paragraph: ParagraphFingerprint(paragraph), insets: insets, detail: detail)
    }

    /// The style runs within `range`, relative to its start.
    func styleRuns(in range: ParagraphRange) -> [StyleRun] {
        var first = styleRuns.partitionPoint { $0.start <= range.start } - 1
        first = max(first, 0)
        var result = [StyleRun(start: 0, style: styleRuns.isEmpty ? 0 : styleRuns[first].style)]
        var i = first + 1
        while i < styleRuns.count, styleRuns[i].start < range.end {
            result.append(StyleRun(start: styleRuns[i].start - range.start, style: styleRuns[i].style))
            i += 1
        }
        return result
    }
}

extension LayoutPass {
    /// The index of the previous layout's paragraph with this text and these styles, if one
    /// can be reused: the one `paragraphRanges` found in place, else one of the same length
    /// and units.
    mutating func reusableParagraph(_ range: ParagraphRange, paragraph index: Int) -> Int? {
        guard !previousParagraphs.isEmpty else { return nil }
        var styleRuns: [StyleRun]?
        if index < matches.count, matches[index] >= 0, canReuse(matches[index], range, paragraph: index, styleRuns: &styleRuns) {
            usedPrevious[matches[index]] = true
            return matches[index]
        }
        if previousByLength == nil {
            var byLength: [Int: [Int]] = [:]
            var found = [Bool](repeating: false, count: previousParagraphs.count)
            for m in matches where m >= 0 { found[m] = true }
            for i in previousParagraphs.indices where !found[i] {
                byLength[previousParagraphs[i].text.count, default: []].append(i)
            }
            previousByLength = byLength
        }
        guard let candidates = previousByLength?[range.end - range.start] else { return nil }
        for i in candidates where sameUnits(previousParagraphs[i].text, range.start)
            && canReuse(i, range, paragraph: index, styleRuns: &styleRuns) {
            usedPrevious[i] = true
            return i
        }
        return nil
    }

    /// Whether previous paragraph `i`, with the same units as `range`, can stand for it:
    /// not taken yet, its lines of use here (`canTakeLines`) or its shaping kept,
    /// and the same style runs (`styleRuns`: those of `range`, found on first need).
    private mutating func canReuse(_ i: Int, _ range: ParagraphRange, paragraph index: Int, styleRuns: inout [StyleRun]?) -> Bool {
        guard !usedPrevious[i], canTakeLines(i, paragraph: index) || previousParagraphs[i].shaping != nil else { return false }
        if styleRuns == nil { styleRuns = request.styleRuns(in: range) }
        let previous = previousParagraphs[i]
        guard let runs = styleRuns, previous.styleRuns.count == runs.count else { return false }
        for (k, run) in runs.enumerated() where previous.styleRuns[k].start != run.start
            || !request.styles.indices.contains(run.style) || previous.styles[k] != request.styles[run.style] {
            return false
        }
        return true
    }

    /// Whether previous paragraph `i` (the same text and styles) can give paragraph `index`
    /// its lines: laid out under the same line parameters, first or not as it is, with its
    /// geometry when this layout keeps it.
    func canTakeLines(_ i: Int, paragraph index: Int) -> Bool {
        let previous = previousParagraphs[i]
        return reusesLines && !previous.lines.isEmpty && previous.isFirst == (index == 0)
            && (!keepsGeometry || previous.geometry != nil)
    }

    /// The line ends of previous paragraph `p` stands for (`i`), when its lines were made
    /// under this layout's line parameters but cannot be taken whole (this layout keeps the
    /// geometry it did not): the lines are put together again at the same ends, without
    /// measuring where they fall (`LineFiller.plan`). Nil when its lines are of no use here.
    func keptLineEnds(_ i: Int?, paragraph index: Int, _ p: ShapedParagraph) -> [PlannedEnd]? {
        guard let i, reusesLines else { return nil }
        let previous = previousParagraphs[i]
        guard !previous.lines.isEmpty, previous.isFirst == (index == 0) else { return nil }
        let showsSoftHyphens = request.paragraph.hyphenation != .none
        var ends: [PlannedEnd] = []
        ends.reserveCapacity(previous.lines.count)
        for line in previous.lines where line.box.start - previous.start < p.count {
            // (A paragraph's last line holds its separator, past its content.)
            let end = min(line.box.end - previous.start, p.count)
            // (A soft hyphen's hyphen is the text's; only one `auto` added is the line's.)
            let soft = showsSoftHyphens && p.softHyphenEnds.contains(end)
            ends.append(PlannedEnd(end: end, addsHyphen: line.box.hyphenated && !soft))
        }
        return ends
    }

    /// Whether `units` are the text's units from `start` on (memcmp).
    private func sameUnits(_ units: [UInt16], _ start: Int) -> Bool {
        guard let base = text.baseAddress, start + units.count <= text.count else { return units.isEmpty }
        return units.withUnsafeBufferPointer { u in
            guard let ub = u.baseAddress else { return true }
            return memcmp(ub, base + start, u.count * 2) == 0
        }
    }

    /// Takes over a previous paragraph's lines at `range`, from `top` down. Lines at the
    /// place they had are taken as they are (their runs are shared, not copied); moved lines
    /// have their offsets, y and font numbers changed.
    mutating func reuse(_ previousIndex: Int, at range: ParagraphRange, paragraph index: Int, top: Double) {
        // The one copy: kept for the next layout, moved to its new place below.
        var kept = previousParagraphs[previousIndex]
        // Each font by its number in the previous layout (`fontIndices`): looked up once per
        // layout, not once per paragraph (a lookup hashes the font's names).
        var sameFonts = true
        for k in kept.fonts.indices {
            let old = kept.fontIndices[k]
            if old >= previousFontNumbers.count {
                previousFontNumbers += repeatElement(-1, count: old + 1 - previousFontNumbers.count)
            }
            if previousFontNumbers[old] < 0 { previousFontNumbers[old] = context.fontNumber(kept.fonts[k]) }
            if previousFontNumbers[old] != old { sameFonts = false }
        }
        // The same numbers (the usual case): the paragraph's array is kept as it is.
        let newFonts = sameFonts ? kept.fontIndices : kept.fontIndices.map { previousFontNumbers[$0] }
        let delta = range.start - kept.start, dy = top - kept.top
        let styleMap = styleNumbers(from: kept.styleRuns, to: request.styleRuns(in: range))
        if styleMap != nil { kept.styleRuns = request.styleRuns(in: range) }
        var fontMap: [Int] = []
        if !sameFonts {
            fontMap = [Int](repeating: 0, count: (kept.fontIndices.max() ?? 0) + 1)
            for (k, i) in kept.fontIndices.enumerated() { fontMap[i] = newFonts[k] }
        }
        let first = lines.count
        lines.reserveCapacity(lines.count + kept.lines.count)
        let unchanged = delta == 0 && dy == 0 && sameFonts && styleMap == nil
        if unchanged {
            lines.append(contentsOf: kept.lines)   // where they were: shared as they are
        } else {
            reuseMoved(kept.lines, delta: delta, dy: dy, fontMap: sameFonts ? nil : fontMap, styleMap: styleMap)
        }
        lineParagraph.append(contentsOf: repeatElement(index, count: kept.lines.count))
        reserved.append(contentsOf: kept.reserved)
        if keepsGeometry { geometry[index] = kept.geometry }
        reusableLines.append(KeptLines(range: first..<lines.count, unchanged: unchanged))
        reusedParagraphs += 1
        runCount += kept.runCount
        glyphCount += kept.glyphCount
        kept.start = range.start
        kept.top = top
        if !sameFonts { kept.fontIndices = newFonts }
        reusable.append(kept)   // its last use: moved, not copied
    }

    /// The old style number → the new one, for a paragraph whose style runs were `old` and
    /// are `new` (the same styles: `canReuse` checked), or nil when every number is the same.
    func styleNumbers(from old: [StyleRun], to new: [StyleRun]) -> [Int: Int]? {
        guard old != new else { return nil }
        var map: [Int: Int] = [:]
        for (o, n) in zip(old, new) { map[o.style] = n.style }
        return map
    }

    /// Appends a previous paragraph's lines moved by `delta` UTF-16 units and `dy` points,
    /// their runs' font numbers mapped through `fontMap` and style numbers through
    /// `styleMap` (nil: unchanged).
    private mutating func reuseMoved(_ old: [AssembledLine], delta: Int, dy: Double, fontMap: [Int]?, styleMap: [Int: Int]? = nil) {
        for var line in old {
            if dy != 0 {
                line.box.y += dy
                line.box.baseline += dy
            }
            if delta != 0 {
                line.box.start += delta
                line.box.end += delta
            }
            if delta != 0 || fontMap != nil || styleMap != nil, !line.box.runs.isEmpty {
                line.box.runs.withUnsafeMutableBufferPointer { runs in
                    for r in runs.indices {
                        runs[r].start += delta
                        runs[r].end += delta
                        if let fontMap { runs[r].font = fontMap[runs[r].font] }
                        if let styleMap, let style = styleMap[runs[r].style] { runs[r].style = style }
                        if delta != 0, !runs[r].glyphs.isEmpty {
                            runs[r].glyphs.withUnsafeMutableBufferPointer { glyphs in
                                for g in glyphs.indices { glyphs[g].cluster += delta }
                            }
                        }
                    }
                }
            }
            lines.append(line)
        }
    }

    /// Keeps what a later layout may reuse of the paragraph whose lines start at `firstLine`
    /// (its lines themselves are taken in `finish`, once they are placed): its shaping, and
    /// what its lines need.
    mutating func keepReusable(_ range: ParagraphRange, paragraph index: Int, firstLine: Int, top: Double,
                               counts: (runs: Int, glyphs: Int)) {
        guard request.keepsShaping else { return }
        let styleRuns = request.styleRuns(in: range)
        var fontIndices: [Int] = []
        for line in lines[firstLine...] {
            for run in line.box.runs where !fontIndices.contains(run.font) { fontIndices.append(run.font) }
        }
        var height = 0.0
        for line in lines[firstLine...] { height = max(height, line.box.y - top + line.box.height) }
        reusable.append(ReusableLayout.Paragraph(
            text: Array(text[range.start..<range.end]), styleRuns: styleRuns,
            styles: styleRuns.map { request.styles.indices.contains($0.style) ? request.styles[$0.style] : request.styles[0] }, isFirst: index == 0,
            lines: [], start: range.start, top: top, reserved: Array(reserved[firstLine...]),
            fonts: fontIndices.map { context.fonts[$0] }, fontIndices: fontIndices,
            geometry: keepsGeometry ? geometry[index] : nil,
            height: height, runCount: counts.runs, glyphCount: counts.glyphs,
            shaping: index < shapings.count ? shapings[index] : nil))
        reusableLines.append(KeptLines(range: firstLine..<lines.count, unchanged: false))
    }

    /// After `finish` placed the lines: each kept paragraph takes its placed lines (a
    /// paragraph taken over unchanged, whose lines did not move, keeps the array it had).
    mutating func storePlacedLines(moved: [Bool]) {
        guard request.keepsReusable, request.reuseKey != nil else { return }
        for k in reusable.indices {
            let kept = reusableLines[k]
            if kept.unchanged, !kept.range.contains(where: { moved[$0] }) { continue }
            reusable[k].lines = Array(lines[kept.range])
        }
    }
}

/// The lines (indices into the layout's) of one kept paragraph, and whether they were taken
/// over from the previous layout without any change.
struct KeptLines {
    var range: Range<Int>
    var unchanged: Bool
}

extension ReusableLayout {
    /// The paragraphs that start in `range` (of the text this layout was made of), for a
    /// layout of that part alone: its shaping, and its lines where the line parameters
    /// match (they are moved to where the part puts them, as any reused paragraph is). The
    /// paragraph starting at the range's end comes too: when the part ends the text, that is
    /// its trailing empty paragraph.
    public func slice(_ range: Range<Int>) -> ReusableLayout {
        let first = paragraphs.partitionPoint { $0.start < range.lowerBound }
        let end = paragraphs.partitionPoint { $0.start <= range.upperBound }
        return ReusableLayout(key: key, shapingKey: shapingKey, paragraphs: Array(paragraphs[first..<max(first, end)]))
    }

    /// The paragraphs of layouts of consecutive parts of one text (each with where its part
    /// starts), for a layout of the whole text: their shaping only (the parts' lines were made
    /// in their own coordinates and under their own line parameters). Parts shaped under
    /// another shaping key than the first are left out.
    public static func joined(_ parts: [(layout: ReusableLayout, start: Int)]) -> ReusableLayout? {
        guard let shapingKey = parts.first?.layout.shapingKey else { return nil }
        var paragraphs: [Paragraph] = []
        for part in parts where part.layout.shapingKey == shapingKey {
            for var paragraph in part.layout.paragraphs {
                paragraph.start += part.start
                paragraph.lines = []
                paragraphs.append(paragraph)
            }
        }
        return ReusableLayout(key: nil, shapingKey: shapingKey, paragraphs: paragraphs)
    }
}
