/// One layout in progress: paragraphs top to bottom, each line in the slots its band leaves
/// free, spacing between lines and paragraphs, truncation at `maxLines`, then alignment.
struct LayoutPass {
    let engine: TextLayoutEngine
    let request: LayoutRequest
    let text: UnsafeBufferPointer<UInt16>
    var context: RequestContext
    var lines: [AssembledLine] = []
    /// The paragraph (index) of each line.
    var lineParagraph: [Int] = []
    /// Room each line's slot leaves unused in the box (indents, exclusions), for the used width.
    var reserved: [Double] = []
    /// Whether the layout keeps the geometry queries read (positions, boundary bits).
    let keepsGeometry: Bool
    /// The text's paragraphs, and the geometry of each as laid out or taken over (nil: not
    /// laid out, after a truncation); `finish` hands them to the layout's `TextGeometry`.
    var paragraphs: [ParagraphRange] = []
    var geometry: [ParagraphGeometry?] = []
    var truncated = false
    /// Paragraphs kept for reuse, and the previous layout's paragraphs by length / taken.
    var reusable: [ReusableLayout.Paragraph] = []
    /// The lines of each of `reusable`'s paragraphs.
    var reusableLines: [KeptLines] = []
    /// Made on the first lookup, of the previous paragraphs not found in place.
    var previousByLength: [Int: [Int]]?
    /// The previous layout's paragraphs when its key matches this request's (else none).
    var previousParagraphs: [ReusableLayout.Paragraph] = []
    /// This layout's number of each font of the previous layout's table, by its number
    /// there (-1: not asked yet), as `reuse` finds them.
    var previousFontNumbers: [Int] = []
    var usedPrevious: [Bool] = []
    /// Per paragraph, the previous paragraph found at its place by `paragraphRanges` (-1: none).
    var matches: [Int] = []
    var reusedParagraphs = 0
    /// Whether the previous layout's lines may be taken over (the same line parameters), not
    /// just its shaping.
    var reusesLines = false
    /// Each paragraph's shaping as kept for later layouts, when this one keeps shaping.
    var shapings: [KeptShaping?] = []
    /// How many paragraphs this layout shaped (rather than taking their shaping over).
    var reshapedParagraphs = 0
    /// Where each shaped paragraph is left when done with (see `DeferredRelease`), if anywhere.
    var deferredRelease: DeferredRelease?
    /// Runs and glyphs of the lines made or taken over so far.
    var runCount = 0
    var glyphCount = 0
    var hiddenRange: Range<Int>?
    var visibleRanges: [Range<Int>] = []
    let wantsRuns: Bool
    let boxLeft: Double
    let boxRight: Double?

    /// `context`: one carried over from a layout of the same text and styles (several widths
    /// of one request), else a new one.
    init(engine: TextLayoutEngine, request: LayoutRequest, text: UnsafeBufferPointer<UInt16>,
         context: RequestContext? = nil) {
        self.engine = engine
        self.request = request
        self.text = text
        self.context = context ?? RequestContext(engine: engine, request: request)
        self.wantsRuns = request.detail >= .runs || request.keepsGeometry
        self.keepsGeometry = request.keepsGeometry || request.detail >= .runs
        self.boxLeft = request.insets.left
        self.boxRight = request.width.map { $0 - request.insets.right }
        if let previous = request.previous, previous.shapingKey == request.shapingKey {
            reusesLines = previous.key != nil && previous.key == request.reuseKey
            previousParagraphs = previous.paragraphs
            usedPrevious = [Bool](repeating: false, count: previous.paragraphs.count)
            var lineCount = 0
            for i in previous.paragraphs.indices { lineCount += previous.paragraphs[i].lines.count }
            // An edit usually keeps nearly every line: room for them all, grown once.
            lines.reserveCapacity(lineCount + 8)
            lineParagraph.reserveCapacity(lineCount + 8)
            reserved.reserveCapacity(lineCount + 8)
            reusable.reserveCapacity(previous.paragraphs.count + 1)
            reusableLines.reserveCapacity(previous.paragraphs.count + 1)
        }
    }

    mutating func layout() throws -> TextLayout {
        paragraphs = splitParagraphs()
        if keepsGeometry { geometry = [ParagraphGeometry?](repeating: nil, count: paragraphs.count) }
        if request.keepsShaping { shapings = [KeptShaping?](repeating: nil, count: paragraphs.count) }
        let style = request.paragraph
        var y = request.insets.top
        for (index, range) in paragraphs.enumerated() {
            if let stop = request.shouldStop?() { throw stop }
            if index > 0 { y += style.paragraphSpacingBefore }
            let previousIndex = reusableParagraph(range, paragraph: index)
            if let previousIndex, canTakeLines(previousIndex, paragraph: index) {
                if !lines.isEmpty { y += style.lineSpacing }
                reuse(previousIndex, at: range, paragraph: index, top: y)
                y += previousParagraphs[previousIndex].height
            } else if try !layOutParagraph(index, range, y: &y, previous: previousIndex) {
                try keepShapingOfRest(after: index, top: y)
                break   // truncated at `maxLines`
            }
            if index < paragraphs.count - 1 { y += style.paragraphSpacing }
        }
        if request.truncation.mode == .head, let maxLines = request.maxLines, lines.count > maxLines {
            try truncateHead(maxLines: maxLines, paragraphs: paragraphs)
        }
        if !truncated { visibleRanges = [0..<text.count] }
        return finish()
    }

    /// The text's paragraphs; with a previous layout, those found unchanged are matched to
    /// its paragraphs (`matches`) as they are found.
    mutating func splitParagraphs() -> [ParagraphRange] {
        var ranges: [ParagraphRange]
        if previousParagraphs.isEmpty {
            ranges = paragraphRanges(text)
        } else {
            var texts: [[UInt16]] = []
            texts.reserveCapacity(previousParagraphs.count)
            for i in previousParagraphs.indices { texts.append(previousParagraphs[i].text) }
            let found = paragraphRanges(text, previous: texts)
            matches = found.matches
            ranges = found.ranges
        }
        // Text that goes on: the empty paragraph after a closing separator is the next
        // piece's first, not this one's.
        if request.textContinues, ranges.count > 1, let last = ranges.last, last.start == last.end {
            ranges.removeLast()
            if matches.count > ranges.count { matches.removeLast(matches.count - ranges.count) }
        }
        return ranges
    }

    /// Shapes paragraph `index` and fills its lines band by band from `y` (moved below
    /// them). False when the line limit was reached with text left (the last line
    /// truncated): the layout stops there.
    mutating func layOutParagraph(_ index: Int, _ range: ParagraphRange, y: inout Double, previous: Int?) throws -> Bool {
        let style = request.paragraph
        let limit = request.truncation.mode == .head ? nil : request.maxLines
        let firstLineOfParagraph = lines.count
        let runsBefore = runCount, glyphsBefore = glyphCount
        var paragraphTop: Double?
        let p = try shapedParagraph(index, previous: previous)
        defer { deferredRelease?.keep(p) }
        var final = p.advances
        var filler = try lineFiller(p)
        filler.plan = try keptLineEnds(previous, paragraph: index, p)
            ?? plannedEnds(p, filler: filler, lineBudget: limit.map { $0 - lines.count }, isLastParagraph: index == paragraphs.count - 1)
        let hyphenWidth = filler.hyphenWidth
        let reduction = try balanceReduction(p, filler: filler, hyphenWidth: hyphenWidth)
        let estimate = try estimatedLineHeight(p)
        let walk = p.tabs.isEmpty ? nil : TabWalk()
        var cursor = LineCursor(start: 0, trailingEmptyLine: p.endsWithHardBreak)
        var done = false
        while !done {
            if let stop = request.shouldStop?() { throw stop }
            if !lines.isEmpty { y += style.lineSpacing }
            if paragraphTop == nil { paragraphTop = y }
            let lead = style.headIndent + (cursor.firstLine ? style.firstLineIndent : 0)
            let slots = slotsForBand(y: &y, height: estimate, lead: lead, rtl: p.isRTL, em: request.styles[0].font.size)
            var band = 0.0
            for slot in slots {
                let tabOrigin = p.isRTL ? (boxRight.map { $0 - (slot.x + (slot.width ?? 0)) } ?? lead) : slot.x - boxLeft
                // As much as fits from the cursor (measured here, where the closure borrows the
                // paragraph in place: passed on, it would be copied for every measure).
                var end = cursor.start, addsHyphen = false
                if cursor.start < p.count {
                    let maxWidth = style.wrap == .none ? nil : slot.width.map { max(0, $0 - reduction) }
                    end = try filler.nextLine(from: cursor.start, maxWidth: maxWidth) { s, e in
                        context.lineWidth(p, prefix: p.prefix, s, e, tabOrigin: tabOrigin, hyphenWidth: hyphenWidth, walk: walk)
                    }
                    addsHyphen = filler.endsHyphenated
                    if end <= cursor.start { end = p.count; addsHyphen = false }   // defensive: a line always moves on
                }
                let line = try assembleNextLine(p, upTo: end, in: slot, tabOrigin: tabOrigin, y: y, cursor: &cursor,
                                                final: &final, hyphenWidth: hyphenWidth, addsHyphen: addsHyphen)
                append(line, paragraph: index, lead: lead)
                band = max(band, line.box.height)
                let isLast = line.box.endsParagraph
                if let limit, lines.count >= limit, !isLast || index < paragraphs.count - 1 {
                    try truncate(p, final: &final, paragraphs: paragraphs, hyphenWidth: hyphenWidth)
                    record(p, final)
                    y += band
                    keepReusable(range, paragraph: index, firstLine: firstLineOfParagraph, top: paragraphTop ?? y,
                                 counts: (runCount - runsBefore, glyphCount - glyphsBefore))
                    return false
                }
                if isLast { done = true; break }
            }
            y += band
        }
        record(p, final)
        keepReusable(range, paragraph: index, firstLine: firstLineOfParagraph, top: paragraphTop ?? y,
                     counts: (runCount - runsBefore, glyphCount - glyphsBefore))
        return true
    }

    /// The line filler of paragraph `p`: its break opportunities, the hyphen a soft hyphen
    /// shows, and with `hyphenation: auto` the words' break points (left-to-right
    /// paragraphs: the dictionaries are of languages written so).
    mutating func lineFiller(_ p: ShapedParagraph) throws -> LineFiller {
        var filler = LineFiller(prefix: p.prefix, hangStart: p.hangStart, breaks: p.breaks, graphemes: p.graphemes)
        let words = p.isRTL ? nil
            : WordHyphenation(request, hyphenator: engine.hyphenator, paragraphStart: p.range.start, length: p.count)
        filler.softHyphenEnds = p.softHyphenEnds
        filler.ignoresSoftHyphens = request.paragraph.hyphenation == .none
        filler.hyphenWidth = p.softHyphenEnds.isEmpty && words == nil ? 0 : try hyphenWidth(p)
        if let words {
            let text = p.text
            filler.hyphenationPoints = { words.points(in: text, lineStart: $0, end: $1) }
        }
        return filler
    }

    /// Where the next line of a paragraph starts, and whether an empty line is still owed
    /// after a line separator ending its content.
    struct LineCursor {
        var start: Int
        var trailingEmptyLine: Bool
        var firstLine = true
    }

    /// The paragraph's next line, from the cursor to `end`, assembled in `slot` at `y`; the
    /// paragraph's last line owns its separator. At the content's end, the empty line a
    /// closing line separator opens.
    mutating func assembleNextLine(_ p: ShapedParagraph, upTo end: Int, in slot: LineSlot, tabOrigin: Double, y: Double,
                                   cursor: inout LineCursor, final: inout [Double], hyphenWidth: Double,
                                   addsHyphen: Bool) throws -> AssembledLine {
        let start = cursor.start
        if start >= p.count { cursor.trailingEmptyLine = false }
        let isLast = end >= p.count && !cursor.trailingEmptyLine
        var line = try context.assembleLine(p, start, end, slot: slot, tabOrigin: tabOrigin,
                                            isLastOfParagraph: isLast, y: y, final: &final,
                                            hyphenWidth: hyphenWidth, addsHyphen: addsHyphen, wantsRuns: wantsRuns)
        if isLast {
            line.box.end = p.range.end
            line.box.endsParagraph = true
        }
        cursor.start = end
        cursor.firstLine = false
        return line
    }

    /// Keeps a line, with the room its slot leaves unused.
    mutating func append(_ line: AssembledLine, paragraph: Int, lead: Double) {
        lines.append(line)
        count(line.box)
        lineParagraph.append(paragraph)
        let inner = boxRight.map { $0 - boxLeft }
        let room = inner.map { $0 - (line.slot.width ?? 0) } ?? (lead + request.paragraph.tailIndent)
        reserved.append(max(0, room))
    }

    /// Adds a line's runs and glyphs to `runCount` and `glyphCount`.
    mutating func count(_ box: LineBox) {
        runCount += box.runs.count
        for run in box.runs { glyphCount += run.glyphs.count }
    }

    /// The finished layout: lines aligned, the used size, the fonts, and the geometry kept
    /// for queries.
    mutating func finish() -> TextLayout {
        var placed = alignLines()
        if !reusable.isEmpty { storePlacedLines(moved: placed.moved) }
        // (`storePlacedLines` was the last to read `lines`' runs.)
        for i in placed.runsToMove { swap(&placed.boxes[i].runs, &lines[i].box.runs) }
        let unchangedLeadingLines = unchangedLeadingLineCount(moved: placed.moved)
        settleFonts()
        if truncated {
            // Truncation dropped and replaced lines (at most `maxLines` are left): counted again.
            runCount = 0
            glyphCount = 0
            for box in placed.boxes { count(box) }
        }
        let textGeometry = keptGeometry()
        let boxes = placed.boxes
        let bottom = boxes.last.map { $0.y + $0.height } ?? request.insets.top
        let reuse = request.keepsShaping
            ? ReusableLayout(key: request.reuseKey, shapingKey: request.shapingKey, paragraphs: reusable) : nil
        var shapingBytes = 0
        for kept in reusable { shapingBytes += kept.shaping?.bytes ?? 0 }
        return TextLayout(lines: boxes, width: placed.usedWidth + request.insets.left + request.insets.right,
                          height: bottom + request.insets.bottom, fonts: context.fonts, truncated: truncated,
                          visibleRanges: visibleRanges, hiddenRange: hiddenRange, tokenRect: placed.tokenRect,
                          positions: PositionTable(geometry: textGeometry),
                          boundaryKinds: BoundaryTable(geometry: textGeometry), reusable: reuse,
                          reusedParagraphs: reusedParagraphs, reshapedParagraphs: reshapedParagraphs,
                          shapingBytes: shapingBytes, runCount: wantsRuns ? runCount : 0,
                          glyphCount: wantsRuns ? glyphCount : 0, unchangedLeadingLines: unchangedLeadingLines)
    }

    /// How many leading lines belong to paragraphs taken over where they were, none of whose
    /// lines moved.
    func unchangedLeadingLineCount(moved: [Bool]) -> Int {
        var count = 0
        for kept in reusableLines {
            guard kept.unchanged, kept.range.lowerBound == count, !kept.range.contains(where: { moved[$0] }) else { break }
            count = kept.range.upperBound
        }
        return count
    }

    /// Without runs (or without any font used), the font table holds just the primary font;
    /// without a font table wanted, it is left as shaping left it.
    mutating func settleFonts() {
        guard request.wantsFontTable, context.fonts.isEmpty || !wantsRuns else { return }
        context.fonts = []
        context.fontIndex = [:]
        context.faceStyleNumbers = [:]
        if let primary = try? context.selector.primaryFace(request.styles[0].font) {
            _ = context.fontNumber(primary, styleIndex: 0)
        }
    }

    /// The geometry queries read: each paragraph's sum before it, the per-unit tables staying
    /// the paragraphs' own. Empty unless the layout keeps geometry.
    func keptGeometry() -> TextGeometry {
        var textGeometry = TextGeometry()
        guard keepsGeometry else { return textGeometry }
        textGeometry.length = text.count
        textGeometry.starts = paragraphs.map(\.start)
        textGeometry.parts = geometry
        var base = 0.0
        textGeometry.bases = geometry.indices.map { i in
            defer { if let g = geometry[i], let last = g.positions.last { base += last } }
            return base
        }
        return textGeometry
    }
}
