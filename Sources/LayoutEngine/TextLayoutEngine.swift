/// Lays out text: splits paragraphs, resolves bidi levels, scripts and a font per grapheme
/// cluster (with fontconfig fallback), shapes runs with HarfBuzz, finds line-break
/// opportunities with ICU, fills lines greedily and orders each line's runs visually.
/// Thread-safe; share one per daemon.
public final class TextLayoutEngine: Sendable {
    public let fonts: FontSystem
    public let breakIterators: BreakIteratorPool
    /// Longest text accepted, in UTF-16 units.
    public let maxTextLength: Int

    public init(fonts: FontSystem, maxTextLength: Int = 16 << 20) {
        self.fonts = fonts
        self.breakIterators = BreakIteratorPool()
        self.maxTextLength = maxTextLength
    }

    /// Lays out `request`. Fails with `EngineError.textTooLong` past `maxTextLength`,
    /// `noFontsAvailable` when fontconfig has no font at all, or `icuFailed`.
    public func layout(_ request: LayoutRequest) throws -> TextLayout {
        guard request.text.count <= maxTextLength else {
            throw EngineError.textTooLong(length: request.text.count, limit: maxTextLength)
        }
        let fallback = try fonts.fallbackList(for: request.font, language: request.language)
        var context = ParagraphContext(engine: self, request: request, fallback: fallback)
        var lines: [LineBox] = []
        var y = 0.0
        try request.text.withUnsafeBufferPointer { text in
            for paragraph in paragraphRanges(text) {
                try context.layoutParagraph(text: text, paragraph, y: &y, into: &lines)
            }
        }
        let usedWidth = lines.reduce(0) { max($0, $1.width) }
        let boxWidth = request.width ?? usedWidth
        for i in lines.indices where lines[i].isRTL {
            let shift = boxWidth - lines[i].width - lines[i].x
            lines[i].x += shift
            for r in lines[i].runs.indices { lines[i].runs[r].x += shift }
        }
        if context.fonts.isEmpty, let primary = context.primaryFace {
            context.fonts.append(UsedFont(identity: primary.identity, family: primary.familyName, size: request.font.size,
                                          variations: primary.effectiveVariations(request.font)))
        }
        return TextLayout(lines: lines, width: usedWidth, height: y, fonts: context.fonts)
    }

    /// Every boundary of `kind` in `text`, 0 and the end included (UTF-16 offsets).
    public func boundaries(_ kind: BoundaryKind, of text: [UInt16], language: String = "") throws -> [Int] {
        guard text.count <= maxTextLength else {
            throw EngineError.textTooLong(length: text.count, limit: maxTextLength)
        }
        return try text.withUnsafeBufferPointer {
            try breakIterators.boundaries(kind, of: $0, locale: icuLocale(language)).offsets.map(Int.init)
        }
    }
}

/// A paragraph: `start..<contentEnd` is its text, `contentEnd..<end` its separator (empty
/// for the last paragraph when the text does not end with one).
struct ParagraphRange: Equatable {
    var start: Int
    var contentEnd: Int
    var end: Int
}

/// Splits text into paragraphs at LF, CR, CR LF, NEL (U+0085) and U+2029. Text ending with a
/// separator has a last, empty paragraph after it.
func paragraphRanges(_ text: UnsafeBufferPointer<UInt16>) -> [ParagraphRange] {
    var result: [ParagraphRange] = []
    var start = 0
    var i = 0
    let n = text.count
    while i < n {
        let u = text[i]
        if u == 0x0A || u == 0x0D || u == 0x85 || u == 0x2029 {
            var end = i + 1
            if u == 0x0D, end < n, text[end] == 0x0A { end += 1 }
            result.append(ParagraphRange(start: start, contentEnd: i, end: end))
            start = end
            i = end
        } else {
            i += 1
        }
    }
    result.append(ParagraphRange(start: start, contentEnd: n, end: n))
    return result
}
