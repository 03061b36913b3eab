/// One layout in progress: paragraphs top to bottom, each line in the slots its band leaves
/// free, spacing between lines and paragraphs, truncation at `maxLines`, then alignment.
struct LayoutRun {
    let engine: TextLayoutEngine
    let request: LayoutRequest
    let text: UnsafeBufferPointer<UInt16>
    var context: ParagraphContext
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
    /// Where each shaped paragraph is left when done with (see `LayoutLeftovers`), if anywhere.
    var leftovers: LayoutLeftovers?
    /// Runs and glyphs of the lines made or taken over so far.
    var runCount = 0
    var glyphCount = 0
    var hiddenRange: Range<Int>?
    var visibleRanges: [Range<Int>] = []
    let wantsRuns: Bool
    let boxLeft: Double
    let boxRight: Double?

    init(engine: TextLayoutEngine, request: LayoutRequest, text: UnsafeBufferPointer<UInt16>) {
        self.engine = engine
        self.request = request
        self.text = text
        self.context = ParagraphContext(engine: engine, request: request)
        self.wantsRuns = request.detail >= .runs || request.keepsGeometry
        self.keepsGeometry = request.keepsGeometry || request.detail >= .runs
        self.boxLeft = request.insets.left
        self.boxRight = request.width.map { $0 - request.insets.right }
        if let previous = request.previous, let key = request.reuseKey, previous.key == key {
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
        let paragraphs: [ParagraphRange]
        if previousParagraphs.isEmpty {
            paragraphs = paragraphRanges(text)
        } else {
            var texts: [[UInt16]] = []
            texts.reserveCapacity(previousParagraphs.count)
            for i in previousParagraphs.indices { texts.append(previousParagraphs[i].text) }
            (paragraphs, matches) = paragraphRanges(text, previous: texts)
        }
        self.paragraphs = paragraphs
        if keepsGeometry { geometry = [ParagraphGeometry?](repeating: nil, count: paragraphs.count) }
        let style = request.paragraph
        var y = request.insets.top
        let limit = request.truncation.mode == .head ? nil : request.maxLines
        paragraphLoop: for (index, range) in paragraphs.enumerated() {
            if let stop = request.shouldStop?() { throw stop }
            if index > 0 { y += style.paragraphSpacingBefore }
            if let previousIndex = reusableParagraph(range, paragraph: index) {
                if !lines.isEmpty { y += style.lineSpacing }
                reuse(previousIndex, at: range, paragraph: index, top: y)
                y += previousParagraphs[previousIndex].height
                if index < paragraphs.count - 1 { y += style.paragraphSpacing }
                continue
            }
            let firstLineOfParagraph = lines.count
            let runsBefore = runCount, glyphsBefore = glyphCount
            var paragraphTop: Double?
            let p = try context.shape(text, range)
            defer { leftovers?.keep(p) }
            var final = p.advances
            let hyphenWidth = p.softHyphenEnds.isEmpty ? 0 : try self.hyphenWidth(p)
            var filler = LineFiller(prefix: p.prefix, hangStart: p.hangStart, breaks: p.breaks, graphemes: p.graphemes)
            filler.softHyphenEnds = p.softHyphenEnds
            filler.hyphenWidth = hyphenWidth
            let estimate = try estimatedLineHeight(p)
            let walk = p.tabs.isEmpty ? nil : TabWalk()
            var start = 0
            var trailingEmptyLine = p.endsWithHardBreak
            var firstLine = true
            var done = false
            while !done {
                if let stop = request.shouldStop?() { throw stop }
                if !lines.isEmpty { y += style.lineSpacing }
                if paragraphTop == nil { paragraphTop = y }
                let lead = style.headIndent + (firstLine ? style.firstLineIndent : 0)
                let slots = slotsForBand(y: &y, height: estimate, lead: lead, rtl: p.isRTL, em: request.styles[0].font.size)
                var band = 0.0
                for slot in slots {
                    let tabOrigin = p.isRTL ? (boxRight.map { $0 - (slot.x + (slot.width ?? 0)) } ?? lead) : slot.x - boxLeft
                    var end: Int
                    if start < p.count {
                        end = try filler.nextLine(from: start, maxWidth: style.wrap == .none ? nil : slot.width) { s, e in
                            context.lineWidth(p, prefix: p.prefix, s, e, tabOrigin: tabOrigin, hyphenWidth: hyphenWidth, walk: walk)
                        }
                        if end <= start { end = p.count }   // defensive: a line always moves on
                    } else {
                        end = start
                        trailingEmptyLine = false
                    }
                    let isLast = end >= p.count && !trailingEmptyLine
                    var line = try context.assembleLine(p, start, end, slot: slot, tabOrigin: tabOrigin,
                                                        isLastOfParagraph: isLast, y: y, final: &final,
                                                        hyphenWidth: hyphenWidth, wantsRuns: wantsRuns)
                    if isLast {
                        line.box.end = range.end
                        line.box.endsParagraph = true
                    }
                    append(line, paragraph: index, lead: lead)
                    band = max(band, line.box.height)
                    start = end
                    firstLine = false
                    let moreText = !isLast || index < paragraphs.count - 1
                    if let limit, lines.count >= limit, moreText {
                        try truncate(p, final: &final, paragraphs: paragraphs, hyphenWidth: hyphenWidth)
                        record(p, final)
                        y += band
                        break paragraphLoop
                    }
                    if isLast { done = true; break }
                }
                y += band
            }
            record(p, final)
            keepReusable(range, paragraph: index, firstLine: firstLineOfParagraph, top: paragraphTop ?? y,
                         counts: (runCount - runsBefore, glyphCount - glyphsBefore))
            if index < paragraphs.count - 1 { y += style.paragraphSpacing }
        }
        if request.truncation.mode == .head, let maxLines = request.maxLines, lines.count > maxLines {
            try truncateHead(maxLines: maxLines, paragraphs: paragraphs)
        }
        if !truncated { visibleRanges = [0..<text.count] }
        return finish()
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

    /// Keeps a paragraph's geometry as laid out: the running sum of its final advances and
    /// its grapheme, shaping-cluster and character-start bits (replacing what an earlier
    /// call for the same paragraph kept).
    mutating func record(_ p: ShapedParagraph, _ final: [Double]) {
        guard keepsGeometry else { return }
        let index = paragraphs.partitionPoint { $0.start < p.range.start }
        guard index < paragraphs.count, paragraphs[index] == p.range else { return }
        let length = p.range.end - p.range.start
        let content = min(final.count, length)
        let positions = [Double](unsafeUninitializedCapacity: length + 1) { out, count in
            var sum = 0.0
            out[0] = 0
            for i in 0..<content {
                sum += final[i]
                out[i + 1] = sum
            }
            // The separator has no advance.
            for i in content..<length { out[i + 1] = sum }
            count = length + 1
        }
        var kinds = [UInt8](repeating: TextLayout.characterStart, count: length)
        kinds.withUnsafeMutableBufferPointer { kinds in
            // Second halves of surrogate pairs start no character.
            for i in 1..<max(p.count, 1) where p.text[i] & 0xFC00 == 0xDC00 && p.text[i - 1] & 0xFC00 == 0xD800 {
                kinds[i] = 0
            }
            for g in p.graphemes where Int(g) < length { kinds[Int(g)] |= TextLayout.graphemeBoundary }
            for run in p.runs {
                if run.start < length { kinds[run.start] |= TextLayout.clusterBoundary }
                for glyph in run.glyphs where Int(glyph.cluster) < length {
                    kinds[Int(glyph.cluster)] |= TextLayout.clusterBoundary
                }
            }
            let contentEnd = p.range.contentEnd - p.range.start
            if contentEnd < length { kinds[contentEnd] |= TextLayout.graphemeBoundary | TextLayout.clusterBoundary }
        }
        geometry[index] = ParagraphGeometry(positions: positions, kinds: kinds)
    }

    /// The width of the hyphen a soft hyphen shows, in the style at the paragraph's start.
    mutating func hyphenWidth(_ p: ShapedParagraph) throws -> Double {
        let style = request.styles[context.styleIndex(at: p.range.start)]
        return context.hyphen(in: try context.selector.primaryFace(style.font), size: style.font.size)?.advance ?? 0
    }

    /// The line height the slots of a paragraph's bands are found for: its first style's
    /// natural line height (a taller line is not checked against exclusions again).
    mutating func estimatedLineHeight(_ p: ShapedParagraph) throws -> Double {
        let style = request.styles[context.styleIndex(at: p.range.start)]
        let m = try context.selector.primaryFace(style.font)?.metrics(size: style.font.size) ?? .zero
        var height = (m.ascent + m.descent + m.lineGap) * (request.paragraph.lineHeightMultiple ?? 1)
        if let minimum = request.paragraph.minimumLineHeight { height = max(height, minimum) }
        if let maximum = request.paragraph.maximumLineHeight { height = min(height, maximum) }
        return max(height, 1)
    }

    /// The slots of the band at `y`: the paragraph's space between its indents, less the
    /// exclusions crossing the band, in reading order. Text continues on both sides of an
    /// exclusion; a free interval narrower than one em is skipped. When no interval is left,
    /// `y` moves below the exclusions in the way.
    func slotsForBand(y: inout Double, height: Double, lead: Double, rtl: Bool, em: Double) -> [LineSlot] {
        let left = boxLeft + (rtl ? request.paragraph.tailIndent : lead)
        let right = boxRight.map { $0 - (rtl ? lead : request.paragraph.tailIndent) }
        let exclusions = request.exclusions.filter { $0.width > 0 && $0.height > 0 }
        guard !exclusions.isEmpty else {
            return [LineSlot(x: left, width: right.map { max(0, $0 - left) })]
        }
        for _ in 0...exclusions.count {
            let crossing = exclusions.filter { $0.y < y + height && $0.maxY > y }
            var intervals: [(Double, Double?)] = [(left, right)]
            for ex in crossing {
                intervals = intervals.flatMap { (lo, hi) -> [(Double, Double?)] in
                    if let hi, ex.x >= hi { return [(lo, hi)] }
                    if ex.maxX <= lo { return [(lo, hi)] }
                    var pieces: [(Double, Double?)] = []
                    if ex.x > lo { pieces.append((lo, ex.x)) }
                    if hi.map({ ex.maxX < $0 }) ?? true { pieces.append((ex.maxX, hi)) }
                    return pieces
                }
            }
            let usable = intervals.filter { lo, hi in hi.map { $0 - lo >= em } ?? true }
            if !usable.isEmpty {
                let slots = usable.map { lo, hi in LineSlot(x: lo, width: hi.map { $0 - lo }) }
                return rtl ? slots.reversed() : slots
            }
            // Nothing free: go below the lowest-reaching exclusion in the way.
            y = crossing.map(\.maxY).min() ?? y + height
        }
        return [LineSlot(x: left, width: right.map { max(0, $0 - left) })]
    }

    /// Final x of every line (alignment in its slot; unbounded slots align against the
    /// widest of them), the used size, fonts, and the geometry kept for queries.
    mutating func finish() -> TextLayout {
        var boxes: [LineBox] = []
        boxes.reserveCapacity(lines.count)
        var usedWidth = 0.0
        var tokenRect: Rect?
        // Kept paragraphs take their lines as placed here (see `storePlacedLines`).
        let keepsLines = !reusable.isEmpty
        var moved = [Bool](repeating: false, count: keepsLines ? lines.count : 0)
        // Lines taken as they are whose runs are moved, not copied, from `lines` to their box
        // once nothing else reads them (below): a copy would retain each line's runs here and
        // release them again when `lines` goes, two writes to a block per line of every
        // paragraph an `update` takes over (most of a streamed append's time).
        var runsToMove: [Int] = []
        let room = reserved, wantsRuns = self.wantsRuns, truncated = self.truncated
        // Through the buffer, fields are read in place: copying a whole line costs a retain.
        lines.withUnsafeMutableBufferPointer { lines in
            var unboundedWidth = 0.0
            for i in lines.indices where lines[i].slot.width == nil {
                unboundedWidth = max(unboundedWidth, lines[i].box.width)
            }
            for i in lines.indices {
                let slot = lines[i].slot
                let available = slot.width ?? unboundedWidth
                let offset: Double = switch lines[i].placement {
                case .left: 0
                case .right: available - lines[i].box.width
                case .center: (available - lines[i].box.width) / 2
                }
                let x = slot.x + offset
                usedWidth = max(usedWidth, lines[i].box.width + room[i])
                if x == lines[i].placedX, x == lines[i].box.x, wantsRuns, !truncated {
                    // Already where it goes (a paragraph taken over from the previous layout, or
                    // a line at x 0 as assembled): as it is, its runs moved over below. (Field
                    // by field: a copy of the box would retain its runs.)
                    let b = lines.baseAddress! + i
                    boxes.append(LineBox(start: b.pointee.box.start, end: b.pointee.box.end, x: b.pointee.box.x,
                                         y: b.pointee.box.y, width: b.pointee.box.width, height: b.pointee.box.height,
                                         baseline: b.pointee.box.baseline, ascent: b.pointee.box.ascent,
                                         descent: b.pointee.box.descent, isRTL: b.pointee.box.isRTL,
                                         hyphenated: b.pointee.box.hyphenated, showsToken: b.pointee.box.showsToken,
                                         endsParagraph: b.pointee.box.endsParagraph, runs: []))
                    runsToMove.append(i)
                    continue
                }
                var box = lines[i].box
                box.x = x
                let dx = box.x - lines[i].placedX
                if dx != 0, !box.runs.isEmpty {
                    box.runs.withUnsafeMutableBufferPointer { runs in
                        for r in runs.indices { runs[r].x += dx }
                    }
                }
                // The truncation token's rect (its runs are found before `runs` may be dropped).
                if box.runs.contains(where: \.isToken) {
                    let tokenRuns = box.runs.filter(\.isToken)
                    tokenRect = Rect(x: tokenRuns.map(\.x).min() ?? box.x, y: box.y,
                                     width: tokenRuns.reduce(0) { $0 + $1.width }, height: box.height)
                }
                if keepsLines, dx != 0 {
                    moved[i] = true
                    lines[i].box = box
                    lines[i].placedX = box.x
                }
                if !wantsRuns { box.runs = [] }
                boxes.append(box)
            }
        }
        if keepsLines { storePlacedLines(moved: moved) }
        // (`storePlacedLines` was the last to read `lines`' runs.)
        for i in runsToMove { swap(&boxes[i].runs, &lines[i].box.runs) }
        // Leading paragraphs taken over where they were, none of whose lines moved.
        var unchangedLeadingLines = 0
        for kept in reusableLines {
            guard kept.unchanged, kept.range.lowerBound == unchangedLeadingLines,
                  !kept.range.contains(where: { moved[$0] }) else { break }
            unchangedLeadingLines = kept.range.upperBound
        }
        if context.fonts.isEmpty || !wantsRuns {
            context.fonts = []
            if let primary = try? context.selector.primaryFace(request.styles[0].font) {
                _ = context.fontNumber(primary, style: request.styles[0])
            }
        }
        var textGeometry = TextGeometry()
        if keepsGeometry {
            // Each paragraph's sum before it; the per-unit tables stay the paragraphs' own.
            textGeometry.length = text.count
            textGeometry.starts = paragraphs.map(\.start)
            textGeometry.parts = geometry
            var base = 0.0
            textGeometry.bases = geometry.indices.map { i in
                defer { if let g = geometry[i], let last = g.positions.last { base += last } }
                return base
            }
        }
        if truncated {
            // Truncation dropped and replaced lines (at most `maxLines` are left): counted again.
            runCount = 0
            glyphCount = 0
            for box in boxes { count(box) }
        }
        let bottom = boxes.last.map { $0.y + $0.height } ?? request.insets.top
        let reuse = request.keepsReusable
            ? request.reuseKey.map { ReusableLayout(key: $0, paragraphs: reusable) } : nil
        return TextLayout(lines: boxes, width: usedWidth + request.insets.left + request.insets.right,
                          height: bottom + request.insets.bottom, fonts: context.fonts, truncated: truncated,
                          visibleRanges: visibleRanges, hiddenRange: hiddenRange, tokenRect: tokenRect,
                          positions: PositionTable(geometry: textGeometry),
                          boundaryKinds: BoundaryTable(geometry: textGeometry), reusable: reuse,
                          reusedParagraphs: reusedParagraphs, runCount: wantsRuns ? runCount : 0,
                          glyphCount: wantsRuns ? glyphCount : 0, unchangedLeadingLines: unchangedLeadingLines)
    }
}
