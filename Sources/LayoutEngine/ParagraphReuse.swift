/// What a later layout of edited text can take over from this one: each paragraph's lines
/// (as laid out, before alignment, offsets and y relative to the paragraph), the advances and
/// boundaries geometry queries need, and the fonts its runs use. A paragraph whose text and
/// styles did not change is not shaped or broken again, only moved.
public struct ReusableLayout: Sendable {
    /// Everything of the request but its text and style runs: reuse needs it unchanged.
    struct Key: Equatable, Sendable {
        var width: Double?
        var styles: [SpanStyle]
        var language: String
        var paragraph: ParagraphFingerprint
        var insets: EdgeInsets
        var detail: LayoutDetail
    }

    struct Paragraph: Sendable {
        var text: [UInt16]
        /// Style runs relative to the paragraph's start (the style at its start first).
        var styleRuns: [StyleRun]
        var isFirst: Bool
        var lines: [AssembledLine]
        /// Room each line's slot leaves unused, for the used width.
        var reserved: [Double]
        /// Fonts the runs' `font` fields index.
        var fonts: [UsedFont]
        var advances: [Double]
        var boundaryKinds: [UInt8]
        /// The bottom of the paragraph's last line, relative to its first line's top.
        var height: Double
    }

    var key: Key
    var paragraphs: [Paragraph]
}

/// The paragraph style as a comparable value.
struct ParagraphFingerprint: Equatable, Sendable {
    var values: [Double]
    var names: [String]

    init(_ s: ParagraphStyle) {
        values = [s.lineSpacing, s.lineHeightMultiple ?? -1, s.minimumLineHeight ?? -1, s.maximumLineHeight ?? -1,
                  s.paragraphSpacing, s.paragraphSpacingBefore, s.headIndent, s.firstLineIndent, s.tailIndent,
                  s.defaultTabInterval] + s.tabStops.flatMap { [$0.location] }
        names = [s.align.rawValue, s.direction.rawValue, s.wrap.rawValue] + s.tabStops.map(\.alignment.rawValue)
    }
}

extension LayoutRequest {
    /// The reuse key, or nil when this request's lines cannot be reused paragraph by
    /// paragraph (exclusions and line limits tie lines to their place in the whole text).
    var reuseKey: ReusableLayout.Key? {
        guard exclusions.isEmpty, maxLines == nil else { return nil }
        return ReusableLayout.Key(width: width, styles: styles, language: language,
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

extension LayoutRun {
    /// The previous layout's paragraph with this text and these styles, if one can be reused.
    mutating func reusableParagraph(_ range: ParagraphRange, isFirst: Bool) -> ReusableLayout.Paragraph? {
        guard let previous = request.previous, let key = request.reuseKey, previous.key == key else { return nil }
        let length = range.end - range.start
        let candidates = previousByLength[length] ?? []
        for i in candidates where !usedPrevious.contains(i) {
            let old = previous.paragraphs[i]
            guard old.isFirst == isFirst, old.text.elementsEqual(text[range.start..<range.end]),
                  old.styleRuns == request.styleRuns(in: range) else { continue }
            usedPrevious.insert(i)
            return old
        }
        return nil
    }

    /// Takes over a previous paragraph's lines at `range`, from `top` down.
    mutating func reuse(_ old: ReusableLayout.Paragraph, at range: ParagraphRange, paragraph index: Int, top: Double) {
        let fontMap = old.fonts.map { context.fontNumber($0) }
        for (k, var line) in old.lines.enumerated() {
            line.box.start += range.start
            line.box.end += range.start
            line.box.y += top
            line.box.baseline += top
            for r in line.box.runs.indices {
                line.box.runs[r].start += range.start
                line.box.runs[r].end += range.start
                line.box.runs[r].font = fontMap[line.box.runs[r].font]
                for g in line.box.runs[r].glyphs.indices { line.box.runs[r].glyphs[g].cluster += range.start }
            }
            lines.append(line)
            lineParagraph.append(index)
            reserved.append(old.reserved[k])
        }
        if !finalAdvances.isEmpty, !old.advances.isEmpty {
            finalAdvances.replaceSubrange(range.start..<(range.start + old.advances.count), with: old.advances)
            let atStart = boundaryKinds[range.start]
            boundaryKinds.replaceSubrange(range.start..<(range.start + old.boundaryKinds.count), with: old.boundaryKinds)
            boundaryKinds[range.start] |= atStart
        }
        reusable.append(old)
        reusedParagraphs += 1
    }

    /// Keeps what a later layout may reuse of the paragraph whose lines start at `firstLine`.
    mutating func keepReusable(_ range: ParagraphRange, firstLine: Int, isFirst: Bool, top: Double) {
        guard request.keepsReusable, request.reuseKey != nil, firstLine < lines.count else { return }
        var fonts: [UsedFont] = []
        var fontIndex: [Int: Int] = [:]
        var kept: [AssembledLine] = []
        for var line in lines[firstLine...] {
            line.box.start -= range.start
            line.box.end -= range.start
            line.box.y -= top
            line.box.baseline -= top
            for r in line.box.runs.indices {
                line.box.runs[r].start -= range.start
                line.box.runs[r].end -= range.start
                let f = line.box.runs[r].font
                if fontIndex[f] == nil { fontIndex[f] = fonts.count; fonts.append(context.fonts[f]) }
                line.box.runs[r].font = fontIndex[f]!
                for g in line.box.runs[r].glyphs.indices { line.box.runs[r].glyphs[g].cluster -= range.start }
            }
            kept.append(line)
        }
        let height = kept.map { $0.box.y + $0.box.height }.max() ?? 0
        reusable.append(ReusableLayout.Paragraph(
            text: Array(text[range.start..<range.end]), styleRuns: request.styleRuns(in: range), isFirst: isFirst,
            lines: kept, reserved: Array(reserved[firstLine...]), fonts: fonts,
            advances: finalAdvances.isEmpty ? [] : Array(finalAdvances[range.start..<range.end]),
            boundaryKinds: boundaryKinds.isEmpty ? [] : Array(boundaryKinds[range.start..<range.end]),
            height: height))
    }
}
