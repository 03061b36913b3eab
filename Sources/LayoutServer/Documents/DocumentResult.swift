import LayoutEngine
import LayoutProtocol

/// The font and style tables of a result made from several pieces: each piece's tables
/// merged in the order the pieces come, each entry once, and each piece's numbers mapped to
/// the merged ones. Over the whole document the order is the whole layout's: first use.
struct MergedTables {
    private(set) var fonts: [UsedFont] = []
    private(set) var styles: [SpanAttributes] = []
    private var fontNumbers: [UsedFont: Int] = [:]
    private var styleNumbers: [String: Int] = [:]

    /// The merged numbers of `piece`'s fonts and styles, by their numbers in the piece.
    mutating func numbers(of piece: RetainedLayout) -> (fonts: [Int], styles: [Int]) {
        let fontMap = piece.layout.fonts.map { font in
            if let known = fontNumbers[font] { return known }
            fonts.append(font)
            fontNumbers[font] = fonts.count - 1
            return fonts.count - 1
        }
        let styleMap = piece.built.styles.map { style in
            let identity = style.identity
            if let known = styleNumbers[identity] { return known }
            styles.append(style)
            styleNumbers[identity] = styles.count - 1
            return styles.count - 1
        }
        return (fontMap, styleMap)
    }
}

extension LayoutService {
    /// The `layout` result of a retained document, offsets in the session's encoding; with
    /// `lines` (document line indices), only those lines; with `viewport`, only the regions
    /// with a rectangle meeting it.
    func result(_ doc: RetainedDocument, session: Session, handle: String?, lines selected: Range<Int>? = nil,
                viewport: ViewportParams? = nil) -> LayoutResult {
        let chosen = selected ?? 0..<doc.lineCount
        let encoding = session.offsetEncoding
        // Every piece's tables, whatever lines are listed: a viewport's runs number fonts
        // and styles as the whole result does.
        var tables = MergedTables()
        let maps = doc.pieceCount > 1 && doc.detail >= .runs
            ? (0..<doc.pieceCount).map { tables.numbers(of: doc.piece(at: $0).piece) } : []
        var lines: [LineResult] = []
        lines.reserveCapacity(chosen.count)
        if !chosen.isEmpty {
            var at = doc.piece(atLine: chosen.lowerBound)
            while true {
                let local = chosen.clamped(to: at.start.lines..<(at.start.lines + at.piece.layout.lines.count))
                let range = (local.lowerBound - at.start.lines)..<(local.upperBound - at.start.lines)
                lines += pieceLines(at, range, encoding: encoding, detail: doc.detail,
                                    maps: maps.isEmpty ? nil : maps[at.index])
                guard at.index + 1 < doc.pieceCount, at.start.lines + at.piece.layout.lines.count < chosen.upperBound else { break }
                at = doc.piece(at: at.index + 1)
            }
        }
        if !doc.isPieced, let decorations = lineDecorations(doc.first, lines: chosen) {
            for i in lines.indices { lines[i].decorations = decorations[i] }
        }
        let whole = doc.isPieced ? nil : doc.first
        let fontTable = doc.detail >= .runs ? (doc.pieceCount > 1 ? tables.fonts : doc.first.layout.fonts)
            : Array(doc.first.layout.fonts.prefix(1))
        let styleTable = doc.pieceCount > 1 ? tables.styles : doc.first.built.styles
        let offsets = doc.first.mapping(encoding)
        let visible = whole.flatMap { w in
            w.layout.truncated ? w.layout.visibleRanges.map { RangeResult(start: offsets.convert($0.lowerBound),
                                                                             end: offsets.convert($0.upperBound)) } : nil
        }
        var result = LayoutResult(width: wire(doc.width), height: wire(doc.height), truncated: whole?.layout.truncated ?? false,
                                  lines: lines, regions: regions(doc, viewport: viewport, encoding: encoding),
                                  fonts: fontTable.map(Self.fontResult),
                                  styles: doc.detail >= .runs ? styleTable.map(\.json) : nil, visible: visible,
                                  handle: handle, fontFingerprint: doc.fontFingerprint)
        result.warnings = doc.warnings
        return result
    }

    private static func fontResult(_ f: UsedFont) -> FontResult {
        FontResult(family: f.family, file: f.identity.path, index: f.identity.index, size: f.size,
                   variations: Dictionary(f.variations.map { ($0.tag, $0.value) }, uniquingKeysWith: { $1 }))
    }

    /// A piece's lines `range` in document coordinates; with `maps`, its runs' font and
    /// style numbers mapped to the document's.
    private func pieceLines(_ at: PieceAt, _ range: Range<Int>, encoding: OffsetEncoding, detail: LayoutDetail,
                            maps: (fonts: [Int], styles: [Int])?) -> [LineResult] {
        let mapping = at.piece.mapping(encoding), dy = at.top
        func offset(_ o: Int) -> Int { at.convert(o, mapping) }
        return at.piece.layout.lines[range].map { line in
            LineResult(start: offset(line.start), end: offset(line.end), x: wire(line.x), y: wire(line.y + dy),
                       width: wire(line.width), height: wire(line.height), baseline: wire(line.baseline + dy),
                       ascent: wire(line.ascent), descent: wire(line.descent), hyphenated: line.hyphenated,
                       runs: detail >= .runs ? line.runs.map { run in
                           RunResult(start: offset(run.start), end: offset(run.end), font: maps?.fonts[run.font] ?? run.font,
                                     style: maps?.styles[run.style] ?? run.style, token: run.isToken,
                                     level: Int(run.level), x: wire(run.x), width: wire(run.width),
                                     glyphs: detail == .glyphs ? run.glyphs.map {
                                         GlyphResult(id: Int($0.id), cluster: offset($0.cluster),
                                                     advance: wire($0.advance), dx: wire($0.xOffset),
                                                     dy: wire(-$0.yOffset - run.baselineOffset))
                                     } : nil)
                       } : nil)
        }
    }

    /// The document's regions in text order; with `viewport`, those of the pieces it meets
    /// with a rectangle meeting it.
    private func regions(_ doc: RetainedDocument, viewport: ViewportParams?, encoding: OffsetEncoding) -> [RegionResult] {
        var results: [RegionResult] = []
        var at = viewport.map { doc.piece(atY: $0.y) } ?? doc.piece(at: 0)
        while true {
            let mapping = at.piece.mapping(encoding), dy = at.top
            for region in at.piece.regions {
                let rects = region.rects.map { Rect(x: $0.x, y: $0.y + dy, width: $0.width, height: $0.height) }
                if let viewport, !rects.contains(where: { viewport.meets(top: $0.y, extent: $0.height) }) { continue }
                results.append(RegionResult(kind: region.kind, start: at.convert(region.start, mapping),
                                            end: at.convert(region.end, mapping), value: region.value,
                                            rects: rects.map(wireRect), enabled: region.enabled))
            }
            guard at.index + 1 < doc.pieceCount else { break }
            at = doc.piece(at: at.index + 1)
            if let viewport, at.top >= viewport.y + viewport.height { break }
        }
        return results
    }

    /// Fails before a document's result is built when the lines, runs and glyphs it would
    /// list cannot fit in the limit even written as briefly as JSON allows.
    func checkResultEstimate(_ doc: RetainedDocument, lines selected: Range<Int>? = nil) throws(RPCError) {
        let chosen = selected ?? 0..<doc.lineCount
        var bytes = chosen.count * Self.minimumLineBytes
        try checkOutputEstimate(bytes)
        guard doc.detail >= .runs, !chosen.isEmpty else { return }
        var at = doc.piece(atLine: chosen.lowerBound)
        while true {
            for (l, line) in at.piece.layout.lines.enumerated() where chosen.contains(at.line(l)) {
                bytes += line.runs.count * Self.minimumRunBytes
                if doc.detail == .glyphs { for run in line.runs { bytes += run.glyphs.count * Self.minimumGlyphBytes } }
            }
            guard at.index + 1 < doc.pieceCount, at.start.lines + at.piece.layout.lines.count < chosen.upperBound else { break }
            at = doc.piece(at: at.index + 1)
        }
        try checkOutputEstimate(bytes)
    }
}
