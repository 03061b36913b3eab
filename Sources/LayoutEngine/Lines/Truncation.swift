/// The truncation token, laid out in its own style: its runs (x from its left edge; the
/// text range is set where it is placed), width and metrics.
struct LaidOutToken {
    var runs: [LineRun]
    var width: Double
    var ascent: Double
    var descent: Double
    var height: Double
}

extension LayoutPass {
    /// Lays out the token (its first line) with its style and puts its fonts in the result's
    /// table.
    mutating func layOutToken() throws -> LaidOutToken {
        let truncation = request.truncation
        var tokenRequest = LayoutRequest(text: truncation.token)
        tokenRequest.styles = [request.styles[min(max(truncation.tokenStyle, 0), request.styles.count - 1)]]
        tokenRequest.language = request.language
        tokenRequest.detail = request.detail == .glyphs ? .glyphs : .runs
        let layout = try engine.layout(tokenRequest)
        guard let line = layout.lines.first else { return LaidOutToken(runs: [], width: 0, ascent: 0, descent: 0, height: 0) }
        var runs: [LineRun] = []
        for var run in line.runs {
            run.font = context.fontNumber(layout.fonts[run.font])
            run.style = truncation.tokenStyle
            run.x -= line.x
            run.isToken = true
            runs.append(run)
        }
        return LaidOutToken(runs: runs, width: line.width, ascent: line.ascent, descent: line.descent, height: line.height)
    }

    /// Places token runs at `x` on `line`, marks them as standing for the text at `offset`,
    /// and grows the line to hold the token.
    func place(_ token: LaidOutToken, at x: Double, offset: Int, in line: inout AssembledLine) {
        for var run in token.runs {
            run.x += x
            run.start = offset
            run.end = offset
            line.box.runs.append(run)
        }
        line.box.runs.sort { $0.x < $1.x }
        line.box.width += token.width
        line.box.showsToken = true
        if token.ascent > line.box.ascent || token.descent > line.box.descent {
            let ascent = max(line.box.ascent, token.ascent), descent = max(line.box.descent, token.descent)
            let gap = max(0, line.box.height - line.box.ascent - line.box.descent)
            line.box.height = max(line.box.height, ascent + descent + gap, token.height)
            line.box.baseline = line.box.y + (line.box.height - ascent - descent) / 2 + ascent
            line.box.ascent = ascent
            line.box.descent = descent
        }
    }

    /// Shifts every run of `line` right by `dx`.
    func shift(_ line: inout AssembledLine, by dx: Double) {
        for r in line.box.runs.indices { line.box.runs[r].x += dx }
    }

    /// The width of `s..<e` of `p` as a line's content (no hyphen), with the tabs as laid out
    /// on a line starting `tabOrigin` from the paragraph's edge.
    func contentWidth(_ p: ShapedParagraph, _ s: Int, _ e: Int, tabOrigin: Double, walk: TabWalk? = nil) -> Double {
        context.lineWidth(p, prefix: p.prefix, s, e, tabOrigin: tabOrigin, hyphenWidth: 0, walk: walk)
    }

    /// The last grapheme boundary `c` of `p` in `ls...limit` whose text `ls..<c` is at most
    /// `width` wide (`ls` when none is).
    func lastFit(_ p: ShapedParagraph, from ls: Int, upTo limit: Int, tabOrigin: Double, width: Double) -> Int {
        var cut = ls
        var g = p.graphemes.partitionPoint { Int($0) <= ls }
        let walk = p.tabs.isEmpty ? nil : TabWalk()
        while g < p.graphemes.count, Int(p.graphemes[g]) <= limit {
            let c = Int(p.graphemes[g])
            if contentWidth(p, ls, c, tabOrigin: tabOrigin, walk: walk) > width + 1e-6 { break }
            cut = c
            g += 1
        }
        return cut
    }

    /// The line being truncated, taken off the lines: what it was and its range in its
    /// paragraph, from which `truncate` makes the line that takes its place.
    struct CutLine {
        var line: AssembledLine
        var paragraphIndex: Int
        var room: Double
        /// The line's range relative to its paragraph (its content only).
        var ls: Int
        var le: Int
    }

    /// The last line reached `maxLines` with text left: cut it (clip), or end it with the
    /// token (tail), or join its start and the text's end around the token (middle).
    mutating func truncate(_ p: ShapedParagraph, final: inout [Double], paragraphs: [ParagraphRange],
                           hyphenWidth: Double) throws {
        truncated = true
        let line = lines.removeLast()
        let cut = CutLine(line: line, paragraphIndex: lineParagraph.removeLast(), room: reserved.removeLast(),
                          ls: line.box.start - p.range.start, le: min(line.box.end - p.range.start, p.count))
        // Undo what the line's assembly wrote (tabs, justification, hyphen): it is rebuilt.
        for i in cut.ls..<cut.le { final[i] = p.advances[i] }
        let rebuilt: AssembledLine
        switch request.truncation.mode {
        case .clip, .head: rebuilt = try clipped(cut, p, final: &final, hyphenWidth: hyphenWidth)
        case .tail: rebuilt = try endedWithToken(cut, p, final: &final)
        case .middle: rebuilt = try joinedAroundToken(cut, p, final: &final, last: paragraphs[paragraphs.count - 1])
        }
        lines.append(rebuilt)
        lineParagraph.append(cut.paragraphIndex)
        reserved.append(cut.room)
    }

    /// Clip (and head, until `truncateHead`): the line as it was, the text after it hidden.
    private mutating func clipped(_ cut: CutLine, _ p: ShapedParagraph, final: inout [Double],
                                  hyphenWidth: Double) throws -> AssembledLine {
        let line = cut.line
        var rebuilt = try context.assembleLine(p, cut.ls, cut.le, slot: line.slot, tabOrigin: line.tabOrigin,
                                               isLastOfParagraph: true, y: line.box.y, final: &final,
                                               hyphenWidth: hyphenWidth, wantsRuns: wantsRuns)
        rebuilt.box.end = line.box.end
        rebuilt.box.endsParagraph = line.box.endsParagraph
        hiddenRange = line.box.end..<text.count
        visibleRanges = [0..<line.box.end]
        return rebuilt
    }

    /// Tail: as much of the line as fits before the token, the token at its logical end.
    private mutating func endedWithToken(_ cut: CutLine, _ p: ShapedParagraph, final: inout [Double]) throws -> AssembledLine {
        let line = cut.line, base = p.range.start
        let token = try layOutToken()
        let available = line.slot.width ?? .infinity
        let fit = token.width < available
            ? lastFit(p, from: cut.ls, upTo: cut.le, tabOrigin: line.tabOrigin, width: available - token.width) : cut.ls
        let visibleCut = max(cut.ls, Int(p.hangStart[fit]))
        var rebuilt = try context.assembleLine(p, cut.ls, visibleCut, slot: line.slot, tabOrigin: line.tabOrigin,
                                               isLastOfParagraph: true, y: line.box.y, final: &final,
                                               hyphenWidth: 0, wantsRuns: true)
        // The token sits at the logical end: the visual end of the paragraph's direction.
        if p.isRTL {
            shift(&rebuilt, by: token.width)
            place(token, at: 0, offset: base + visibleCut, in: &rebuilt)
        } else {
            place(token, at: rebuilt.box.width, offset: base + visibleCut, in: &rebuilt)
        }
        hiddenRange = (base + visibleCut)..<text.count
        visibleRanges = [0..<(base + visibleCut)]
        return rebuilt
    }

    /// Middle: the line's start and the text's end (of its last paragraph, `last`) around the
    /// token, the end taking up to half the room.
    private mutating func joinedAroundToken(_ cut: CutLine, _ p: ShapedParagraph, final: inout [Double],
                                            last: ParagraphRange) throws -> AssembledLine {
        let line = cut.line, base = p.range.start
        let token = try layOutToken()
        let lastIndex = paragraphs.count - 1
        let q = last == p.range ? p : try shapedParagraph(lastIndex, previous: reusableParagraph(last, paragraph: lastIndex))
        var qFinal = q.advances
        let room = max(0, (line.slot.width ?? line.box.width) - token.width)
        var c2 = try endPartStart(q, room: room / 2)
        // Within one paragraph, the end part never reaches back before the line.
        if q.range == p.range, c2 < cut.ls { c2 = cut.ls }
        let endWidth = contentWidth(q, c2, q.count, tabOrigin: 0)
        let startLimit = last == p.range ? min(cut.le, c2) : cut.le
        let fit = lastFit(p, from: cut.ls, upTo: startLimit, tabOrigin: line.tabOrigin, width: room - endWidth)
        let visibleCut = max(cut.ls, Int(p.hangStart[fit]))
        var startPart = try context.assembleLine(p, cut.ls, visibleCut, slot: line.slot, tabOrigin: line.tabOrigin,
                                                 isLastOfParagraph: true, y: line.box.y, final: &final,
                                                 hyphenWidth: 0, wantsRuns: true)
        let endPart = try context.assembleLine(q, c2, q.count, slot: line.slot, tabOrigin: 0,
                                               isLastOfParagraph: true, y: line.box.y, final: &qFinal,
                                               hyphenWidth: 0, wantsRuns: true)
        if q.range != p.range { record(q, qFinal) }
        join(&startPart, endPart, endWidth: endWidth, token: token, tokenOffset: base + visibleCut, rtl: p.isRTL)
        hiddenRange = (base + visibleCut)..<(q.range.start + c2)
        visibleRanges = [0..<(base + visibleCut), (q.range.start + c2)..<text.count]
        return startPart
    }

    /// Where the end part of a middle truncation starts in `q`: the first grapheme boundary
    /// from which the rest of `q` is at most `width` wide.
    private func endPartStart(_ q: ShapedParagraph, room width: Double) throws -> Int {
        var c2 = q.count
        var g = q.graphemes.count - 2
        while g >= 0, contentWidth(q, Int(q.graphemes[g]), q.count, tabOrigin: 0) <= width + 1e-6 {
            if let stop = context.request.shouldStop?() { throw stop }
            c2 = Int(q.graphemes[g])
            g -= 1
        }
        return c2
    }

    /// Joins a middle truncation's parts: the token after the start part (in the paragraph's
    /// direction), then the end part's runs; the line as tall as the taller part.
    private func join(_ startPart: inout AssembledLine, _ endPart: AssembledLine, endWidth: Double, token: LaidOutToken,
                      tokenOffset: Int, rtl: Bool) {
        let startWidth = startPart.box.width
        let endRuns = endPart.box.runs
        if rtl {
            shift(&startPart, by: endWidth + token.width)
            place(token, at: endWidth, offset: tokenOffset, in: &startPart)
            startPart.box.runs += endRuns
        } else {
            place(token, at: startWidth, offset: tokenOffset, in: &startPart)
            startPart.box.runs += endRuns.map { var r = $0; r.x += startWidth + token.width; return r }
        }
        startPart.box.runs.sort { $0.x < $1.x }
        startPart.box.width += endWidth
        if endPart.box.height > startPart.box.height {
            startPart.box.height = endPart.box.height
            startPart.box.ascent = max(startPart.box.ascent, endPart.box.ascent)
            startPart.box.descent = max(startPart.box.descent, endPart.box.descent)
            startPart.box.baseline = endPart.box.baseline
        }
        startPart.box.end = text.count
        startPart.box.endsParagraph = true
    }

    /// Head truncation, after the whole text is laid out: keep the last `maxLines` lines,
    /// the first of them starting with the token and as much of its own end as fits, and
    /// move them to the top.
    mutating func truncateHead(maxLines: Int, paragraphs: [ParagraphRange]) throws {
        truncated = true
        let drop = lines.count - maxLines
        let first = lines[drop]
        let p = try paragraphAgain(lineParagraph[drop])
        var final = p.advances
        let base = p.range.start
        let ls = first.box.start - base
        let le = min(first.box.end - base, p.count)
        let token = try layOutToken()
        let available = first.slot.width ?? first.box.width
        var cut = le
        if token.width < available {
            for g in p.graphemes where Int(g) >= ls && Int(g) <= le {
                if let stop = context.request.shouldStop?() { throw stop }
                if contentWidth(p, Int(g), le, tabOrigin: first.tabOrigin) + token.width <= available + 1e-6 {
                    cut = Int(g)
                    break
                }
            }
        }
        var rebuilt = try context.assembleLine(p, cut, le, slot: first.slot, tabOrigin: first.tabOrigin,
                                               isLastOfParagraph: le >= p.count, y: first.box.y, final: &final,
                                               hyphenWidth: 0, wantsRuns: true)
        // The token sits at the logical start: the visual start of the paragraph's direction.
        if p.isRTL {
            place(token, at: rebuilt.box.width, offset: base + cut, in: &rebuilt)
        } else {
            shift(&rebuilt, by: token.width)
            place(token, at: 0, offset: base + cut, in: &rebuilt)
        }
        rebuilt.box.end = first.box.end
        rebuilt.box.endsParagraph = first.box.endsParagraph
        record(p, final)
        lines[drop] = rebuilt
        lines.removeFirst(drop)
        lineParagraph.removeFirst(drop)
        reserved.removeFirst(drop)
        let dy = lines[0].box.y - request.insets.top
        for i in lines.indices {
            lines[i].box.y -= dy
            lines[i].box.baseline -= dy
        }
        hiddenRange = 0..<(base + cut)
        visibleRanges = [(base + cut)..<text.count]
    }
}
