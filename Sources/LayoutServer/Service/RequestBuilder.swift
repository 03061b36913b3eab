import LayoutEngine
import LayoutProtocol

/// A `layout` or `measure` request made ready for the engine: the text in UTF-16 and the
/// mapping back to the connection's encoding, spans snapped to grapheme clusters and composed
/// into styles, the paragraph style, all sizes scaled, and what the regions will need.
struct BuiltRequest {
    var request: LayoutRequest
    var mapping: OffsetMapping
    /// The composed attributes of each style (index 0: the base style, no span).
    var styles: [SpanAttributes]
    /// Link, data, code and attachment spans, then detected links, snapped, in UTF-16, in the
    /// order given.
    var regionSpans: [RegionSpan]
    var token: String
    /// Every span the client gave, snapped, in UTF-16 (what `update` carries through edits;
    /// attachments from plugins are not among them, they are found again after each edit).
    var spans: [(start: Int, end: Int, attributes: SpanAttributes)]
    /// What went wrong in plugins without failing the request, for the result's `warnings`.
    var warnings: [String] = []
}

/// A span that comes back as a region: its kind, its range in UTF-16, its value (none for
/// `code` and for an attachment without one) and, for a link, whether it is enabled.
struct RegionSpan {
    var kind: String
    var start: Int
    var end: Int
    var value: JSONValue?
    var enabled = true

    /// The regions a span's own attributes make, in a fixed order: link, data, code, attachment.
    static func of(_ span: (start: Int, end: Int, attributes: SpanAttributes)) -> [RegionSpan] {
        let a = span.attributes
        var made: [RegionSpan] = []
        if let link = a.link { made.append(RegionSpan(kind: "link", start: span.start, end: span.end, value: .string(link), enabled: a.enabled ?? true)) }
        if let data = a.data { made.append(RegionSpan(kind: "data", start: span.start, end: span.end, value: data)) }
        if a.code == true { made.append(RegionSpan(kind: "code", start: span.start, end: span.end, value: nil)) }
        if let attachment = a.attachment { made.append(RegionSpan(kind: "attachment", start: span.start, end: span.end, value: attachment.value)) }
        return made
    }
}

extension SpanAttributes: SpanAttributeSet {
    /// Attributes compose alike exactly when they read alike as JSON.
    public var identity: String { JSONWriter.string(json) }
    public var isInlineObject: Bool { attachment != nil }
}

extension LayoutService {
    /// Builds the engine request for validated params. Fails with -32602 naming the field
    /// for span offsets past the end of the text or text over the length limit.
    /// `utf16Spans`, when given, replaces `p.spans`: spans already in UTF-16 (after edits).
    /// `utf16Text`, when given, replaces `p.text` (the text after edits, already in UTF-16).
    /// `detect`: run the link detectors (not needed when only the size is wanted).
    func build(_ p: LayoutParams, session: Session, detail: LayoutDetail,
               utf16Spans: [(start: Int, end: Int, attributes: SpanAttributes)]? = nil,
               utf16Text: [UInt16]? = nil, detect: Bool = true) throws(RPCError) -> BuiltRequest {
        var warnings: [String] = []
        let text: [UInt16]
        if let utf16Text { text = utf16Text } else { text = try requestText(units: p.textUnits, text: p.text, retained: p.retain) }
        let mapping = OffsetMapping(text: text, encoding: session.offsetEncoding.engineEncoding)
        var attributed = AttributedText<SpanAttributes>(text: text, maxLength: engine.maxTextLength)
        func snapped(_ start: Int, _ end: Int) throws(RPCError) -> (Int, Int) {
            do { return try attributed.snapped(start, end) } catch { throw Self.rpcError(error) }
        }
        let spans = try snappedSpans(p, utf16Spans: utf16Spans, textLength: text.count, mapping: mapping, session: session,
                                     snapped: snapped)
        // Plugins: attachment providers make inline objects (under the client's spans, which
        // compose over them), link detectors make regions.
        let plugged = try pluginSpans(p, text: text, userSpans: spans, detect: detect, warnings: &warnings,
                                      snapped: { (a: Int, b: Int) throws(RPCError) in try snapped(a, b) })
        let composedSpans = plugged.attachments + spans
        let truncation = p.paragraph.truncation
        let composed = try composedStyles(composedSpans, tokenStyle: truncation.style, mapping: mapping)

        var request = LayoutRequest(text: text, width: p.width, language: p.language ?? "", detail: detail)
        let scale = p.scale, baseFont = baseFont(p.font, scale: scale)
        request.styles = composed.styles.map { SpanStyle(styleOverrides($0, scale: scale), over: baseFont) }
        request.styleRuns = composed.runs
        request.graphemes = attributed.graphemes
        request.paragraph = paragraphStyle(p.paragraph, scale: scale)
        request.insets = EdgeInsets(top: p.insets.top, left: p.insets.left, bottom: p.insets.bottom, right: p.insets.right)
        request.exclusions = p.exclusions.map { Rect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
        if let maxLines = p.paragraph.maxLines, maxLines > 0 { request.maxLines = maxLines }
        request.truncation = Truncation(mode: Truncation.Mode(rawValue: truncation.mode) ?? .tail,
                                        token: Array(truncation.token.utf16), tokenStyle: composed.tokenStyle)

        var regionSpans = composedSpans.flatMap(RegionSpan.of)
        regionSpans += plugged.links.map { RegionSpan(kind: $0.kind, start: $0.start, end: $0.end, value: $0.value) }
        request.keepsGeometry = detail != .lines || !regionSpans.isEmpty || request.maxLines != nil || p.decorations != nil
        if request.paragraph.hyphenation == .auto {
            request.unhyphenated = Self.merged(regionSpans.map { $0.start..<$0.end })
            request.hyphenationLanguages = Self.languageRanges(composed.styles, composed.runs, textLength: text.count)
            warnings += missingDictionaries(request)
        }
        return BuiltRequest(request: request, mapping: mapping, styles: composed.styles, regionSpans: regionSpans,
                            token: truncation.token, spans: spans, warnings: warnings)
    }

    /// Why `hyphenation: auto` hyphenates nothing in the request's `language`, or in a
    /// span's, for the result's warnings (each language once); none when dictionaries serve
    /// them. Without a request `language`, text outside the spans that name one.
    private func missingDictionaries(_ request: LayoutRequest) -> [String] {
        var warnings: [String] = []
        let spansCoverAll = request.hyphenationLanguages.count == 1 && request.hyphenationLanguages[0].range == 0..<request.text.count
        if request.language.isEmpty, !spansCoverAll {
            warnings.append("hyphenation \"auto\" needs the text's language (`language`, or a span's): only soft hyphens break words"
                            + (request.hyphenationLanguages.isEmpty ? "" : " outside the spans that name one"))
        }
        var named = request.language.isEmpty ? [] : [request.language]
        for r in request.hyphenationLanguages where !named.contains(r.language) { named.append(r.language) }
        for language in named where engine.hyphenator.dictionary(for: language) == nil {
            warnings.append("no hyphenation dictionary for language \"\(language)\" in \(engine.hyphenator.folder): only soft hyphens break its words (hyphenation \"manual\")")
        }
        return warnings
    }

    /// The ranges of the composed style runs whose attributes name a `language`, runs of one
    /// language joined, ascending.
    static func languageRanges(_ styles: [SpanAttributes], _ runs: [StyleRun], textLength: Int) -> [LanguageRange] {
        var ranges: [LanguageRange] = []
        for (i, run) in runs.enumerated() {
            let end = i + 1 < runs.count ? runs[i + 1].start : textLength
            guard run.style >= 0, run.style < styles.count, let language = styles[run.style].language, run.start < end else { continue }
            if let last = ranges.last, last.range.upperBound == run.start, last.language == language {
                ranges[ranges.count - 1].range = last.range.lowerBound..<end
            } else {
                ranges.append(LanguageRange(range: run.start..<end, language: language))
            }
        }
        return ranges
    }

    /// `ranges` sorted, overlapping and touching ones joined.
    static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) where !r.isEmpty {
            if let last = out.last, r.lowerBound <= last.upperBound {
                out[out.count - 1] = last.lowerBound..<max(last.upperBound, r.upperBound)
            } else {
                out.append(r)
            }
        }
        return out
    }

    /// The spans composed into styles (`ComposedStyles`), and the truncation token's style
    /// number. Without spans or a token style, the one base style, as `ComposedStyles` makes
    /// it, without composing (most requests: no generic composition to set up).
    private func composedStyles(_ spans: [(start: Int, end: Int, attributes: SpanAttributes)], tokenStyle: SpanAttributes?,
                                mapping: OffsetMapping)
        throws(RPCError) -> (styles: [SpanAttributes], runs: [StyleRun], tokenStyle: Int) {
        if spans.isEmpty, tokenStyle == nil { return ([SpanAttributes()], [StyleRun(start: 0, style: 0)], 0) }
        var composed: ComposedStyles<SpanAttributes>
        do {
            composed = try ComposedStyles(spans.map { AttributedSpan(start: $0.start, end: $0.end, attributes: $0.attributes) },
                                          maxOverlapping: LayoutParams.maxOverlappingSpans)
        } catch {
            switch error {
            case .tooManyOverlappingSpans(let offset, let limit):
                throw .invalidParams(field: "spans", "has more than \(limit) spans over one place (offset \(mapping.convert(offset)))")
            }
        }
        let token = tokenStyle.map { composed.styleNumber($0) } ?? 0
        return (composed.styles, composed.styleRuns, token)
    }

    /// The client's spans in UTF-16 (`utf16Spans`, after edits, else `p.spans` converted
    /// from the connection's encoding), snapped to grapheme clusters.
    private func snappedSpans(_ p: LayoutParams, utf16Spans: [(start: Int, end: Int, attributes: SpanAttributes)]?,
                              textLength: Int, mapping: OffsetMapping, session: Session,
                              snapped: (Int, Int) throws(RPCError) -> (Int, Int))
        throws(RPCError) -> [(start: Int, end: Int, attributes: SpanAttributes)] {
        var spans: [(start: Int, end: Int, attributes: SpanAttributes)] = []
        let given: [TextSpan]
        if let utf16Spans { given = utf16Spans } else { given = try self.utf16Spans(p, mapping: mapping, session: session) }
        spans.reserveCapacity(given.count)
        for span in given {
            let (start, end) = try snapped(min(span.start, textLength), min(span.end, textLength))
            spans.append((start, end, span.attributes))
        }
        return spans
    }

    /// `p.spans` converted from the connection's encoding to UTF-16 (not yet snapped); fails
    /// naming the span that ends past the text.
    func utf16Spans(_ p: LayoutParams, mapping: OffsetMapping, session: Session) throws(RPCError) -> [TextSpan] {
        var spans: [TextSpan] = []
        spans.reserveCapacity(p.spans.count)
        for (i, span) in p.spans.enumerated() {
            guard span.end <= mapping.length else {
                throw .invalidParams(field: "spans[\(i)].end",
                                     "is past the end of the text (\(mapping.length) \(session.offsetEncoding.unitName))")
            }
            spans.append((mapping.utf16Offset(span.start), mapping.utf16Offset(span.end, roundingUp: true), span.attributes))
        }
        return spans
    }

    /// The request's base font, its size scaled.
    private func baseFont(_ f: FontSpec, scale: Double) -> FontDescriptor {
        FontDescriptor(
            family: f.family ?? configuration.defaultFamily, size: (f.size ?? configuration.defaultSize) * scale,
            weight: f.weight ?? 400, style: f.style.flatMap(FontDescriptor.Style.init(rawValue:)) ?? .normal,
            features: f.features.map { FontFeature(tag: $0.tag, value: UInt32($0.value)) },
            variations: f.variations.map { FontVariation(tag: $0.tag, value: $0.value) })
    }

    /// The engine's part of composed attributes, scaled: the font fields they set, letter
    /// spacing, baseline offset and an inline object's size.
    private func styleOverrides(_ a: SpanAttributes, scale: Double) -> StyleOverrides {
        var o = StyleOverrides()
        if let f = a.font {
            o.family = f.family
            o.size = f.size.map { $0 * scale }
            o.weight = f.weight
            o.style = f.style.flatMap(FontDescriptor.Style.init(rawValue:))
            o.features = f.features.map { FontFeature(tag: $0.tag, value: UInt32($0.value)) }
            o.variations = f.variations.map { FontVariation(tag: $0.tag, value: $0.value) }
        }
        o.letterSpacing = (a.letterSpacing ?? 0) * scale
        o.baselineOffset = (a.baselineOffset ?? 0) * scale
        o.attachment = a.attachment.map { Attachment(width: $0.width * scale, ascent: $0.ascent * scale, descent: $0.descent * scale) }
        return o
    }

    /// The engine's paragraph style, lengths scaled.
    private func paragraphStyle(_ p: ParagraphParams, scale: Double) -> ParagraphStyle {
        var style = ParagraphStyle()
        style.align = p.align.flatMap(TextAlignment.init(rawValue:)) ?? .start
        style.direction = p.direction.flatMap(ParagraphDirection.init(rawValue:)) ?? .auto
        style.wrap = p.wrap.flatMap(WrapMode.init(rawValue:)) ?? .word
        style.wrapStyle = p.wrapStyle.flatMap(WrapStyle.init(rawValue:)) ?? .greedy
        style.hyphenation = p.hyphenation.flatMap(Hyphenation.init(rawValue:)) ?? .manual
        let m = p.hyphenationMinimum, defaults = HyphenationMinimum()
        style.hyphenationMinimum = HyphenationMinimum(before: m.before ?? defaults.before, after: m.after ?? defaults.after,
                                                      word: m.word ?? defaults.word)
        style.lineSpacing = (p.lineSpacing ?? 0) * scale
        style.lineHeightMultiple = p.lineHeightMultiple
        style.minimumLineHeight = p.minimumLineHeight.map { $0 * scale }
        style.maximumLineHeight = p.maximumLineHeight.map { $0 * scale }
        style.paragraphSpacing = (p.paragraphSpacing ?? 0) * scale
        style.paragraphSpacingBefore = (p.paragraphSpacingBefore ?? 0) * scale
        style.firstLineIndent = (p.firstLineIndent ?? 0) * scale
        style.headIndent = (p.headIndent ?? 0) * scale
        style.tailIndent = (p.tailIndent ?? 0) * scale
        style.tabStops = p.tabStops.map {
            TabStop(location: $0.location * scale, alignment: TabStop.Alignment(rawValue: $0.alignment) ?? .left)
        }
        style.defaultTabInterval = (p.defaultTabInterval ?? 28) * scale
        return style
    }
}

extension OffsetEncoding {
    /// What the encoding counts, for messages.
    var unitName: String {
        switch self {
        case .utf8: "UTF-8 bytes"
        case .utf16: "UTF-16 units"
        case .utf32: "code points"
        }
    }
}
