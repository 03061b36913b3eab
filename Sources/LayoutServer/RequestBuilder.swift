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
        if let utf16Text { text = utf16Text } else { text = try requestText(units: p.textUnits, text: p.text) }
        let mapping = OffsetMapping(text: text, encoding: session.offsetEncoding.engineEncoding)
        let scale = p.scale
        let baseFont = FontDescriptor(
            family: p.font.family ?? configuration.defaultFamily, size: (p.font.size ?? configuration.defaultSize) * scale,
            weight: p.font.weight ?? 400, style: p.font.style.flatMap(FontDescriptor.Style.init(rawValue:)) ?? .normal,
            features: p.font.features.map { FontFeature(tag: $0.tag, value: UInt32($0.value)) },
            variations: p.font.variations.map { FontVariation(tag: $0.tag, value: $0.value) })

        // Spans: to UTF-16, edges snapped outward to grapheme clusters.
        var spans: [(start: Int, end: Int, attributes: SpanAttributes)] = []
        let given = utf16Spans ?? []
        var graphemeList: [Int]?
        func snapped(_ start: Int, _ end: Int) throws(RPCError) -> (Int, Int) {
            if graphemeList == nil {
                do { graphemeList = try engine.boundaries(.grapheme, of: text) } catch { throw Self.rpcError(error) }
            }
            let graphemes = graphemeList!
            return (graphemes[max(0, graphemes.partitionPoint { $0 <= start } - 1)],
                    graphemes[min(graphemes.count - 1, graphemes.partitionPoint { $0 < end })])
        }
        if utf16Spans != nil {
            for span in given {
                let (start, end) = try snapped(min(span.start, text.count), min(span.end, text.count))
                spans.append((start, end, span.attributes))
            }
        } else {
            for (i, span) in p.spans.enumerated() {
                guard span.end <= mapping.length else {
                    throw .invalidParams(field: "spans[\(i)].end",
                                         "is past the end of the text (\(mapping.length) \(session.offsetEncoding.unitName))")
                }
                let (start, end) = try snapped(mapping.utf16Offset(span.start), mapping.utf16Offset(span.end, roundingUp: true))
                spans.append((start, end, span.attributes))
            }
        }

        // Plugins: attachment providers make inline objects (under the client's spans, which
        // compose over them), link detectors make regions.
        let plugged = try pluginSpans(p, text: text, userSpans: spans, detect: detect, warnings: &warnings,
                                      snapped: { (a: Int, b: Int) throws(RPCError) in try snapped(a, b) })
        let composedSpans = plugged.attachments + spans

        // Composition: each stretch between span edges gets the attributes of the spans over
        // it, later spans winning; equal results share a style.
        var styles: [SpanAttributes] = [SpanAttributes()]
        // (Keyed by their JSON; made when the first span needs it, as most requests have none.)
        var styleKeys: [String: Int] = [:]
        func styleNumber(_ attributes: SpanAttributes) -> Int {
            if styleKeys.isEmpty { styleKeys[JSONWriter.string(SpanAttributes().json)] = 0 }
            let key = JSONWriter.string(attributes.json)
            if let known = styleKeys[key] { return known }
            styles.append(attributes)
            styleKeys[key] = styles.count - 1
            return styles.count - 1
        }
        var styleRuns = [StyleRun(start: 0, style: 0)]
        if !composedSpans.isEmpty {
            let spans = composedSpans
            var edges: [(offset: Int, span: Int, opens: Bool)] = []
            edges.reserveCapacity(spans.count * 2)
            for (i, s) in spans.enumerated() where s.end > s.start {
                edges.append((s.start, i, true))
                edges.append((s.end, i, false))
            }
            edges.sort { $0.offset < $1.offset }
            var active: Set<Int> = []
            var e = 0
            while e < edges.count {
                let offset = edges[e].offset
                while e < edges.count, edges[e].offset == offset {
                    if edges[e].opens { active.insert(edges[e].span) } else { active.remove(edges[e].span) }
                    e += 1
                }
                // Composition costs the number of spans over a place: bound it.
                guard active.count <= LayoutParams.maxOverlappingSpans else {
                    throw .invalidParams(field: "spans", "has more than \(LayoutParams.maxOverlappingSpans) spans over one place (offset \(mapping.convert(offset)))")
                }
                var composed = SpanAttributes()
                for i in active.sorted() { composed = spans[i].attributes.applied(over: composed) }
                let style = styleNumber(composed)
                if styleRuns.last?.start == offset { styleRuns.removeLast() }
                // Each attachment is its own object: never merged with a neighbour of its style.
                if styleRuns.last?.style != style || composed.attachment != nil {
                    styleRuns.append(StyleRun(start: offset, style: style))
                }
            }
        }
        let truncation = p.paragraph.truncation
        let tokenStyle = truncation.style.map { styleNumber($0) } ?? 0

        var request = LayoutRequest(text: text, width: p.width, language: p.language ?? "", detail: detail)
        request.styles = styles.map { engineStyle($0, base: baseFont, scale: scale) }
        request.styleRuns = styleRuns
        request.paragraph = paragraphStyle(p.paragraph, scale: scale)
        request.insets = EdgeInsets(top: p.insets.top, left: p.insets.left, bottom: p.insets.bottom, right: p.insets.right)
        request.exclusions = p.exclusions.map { Rect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
        if let maxLines = p.paragraph.maxLines, maxLines > 0 { request.maxLines = maxLines }
        request.truncation = Truncation(mode: Truncation.Mode(rawValue: truncation.mode) ?? .tail,
                                        token: Array(truncation.token.utf16), tokenStyle: tokenStyle)

        var regionSpans = composedSpans.flatMap(RegionSpan.of)
        regionSpans += plugged.links.map { RegionSpan(kind: $0.kind, start: $0.start, end: $0.end, value: $0.value) }
        request.keepsGeometry = detail != .lines || !regionSpans.isEmpty || request.maxLines != nil || p.decorations != nil
        return BuiltRequest(request: request, mapping: mapping, styles: styles, regionSpans: regionSpans,
                            token: truncation.token, spans: spans, warnings: warnings)
    }

    /// The engine's part of composed attributes: the font over the base font, letter spacing
    /// and baseline offset, scaled.
    private func engineStyle(_ a: SpanAttributes, base: FontDescriptor, scale: Double) -> SpanStyle {
        var font = base
        if let f = a.font {
            if let v = f.family { font.family = v }
            if let v = f.size { font.size = v * scale }
            if let v = f.weight { font.weight = v }
            if let v = f.style, let s = FontDescriptor.Style(rawValue: v) { font.style = s }
            if !f.features.isEmpty { font.features = f.features.map { FontFeature(tag: $0.tag, value: UInt32($0.value)) } }
            if !f.variations.isEmpty { font.variations = f.variations.map { FontVariation(tag: $0.tag, value: $0.value) } }
        }
        return SpanStyle(font: font, letterSpacing: (a.letterSpacing ?? 0) * scale,
                         baselineOffset: (a.baselineOffset ?? 0) * scale,
                         attachment: a.attachment.map { Attachment(width: $0.width * scale, ascent: $0.ascent * scale,
                                                                   descent: $0.descent * scale) })
    }

    /// The engine's paragraph style, lengths scaled.
    private func paragraphStyle(_ p: ParagraphParams, scale: Double) -> ParagraphStyle {
        var style = ParagraphStyle()
        style.align = p.align.flatMap(TextAlignment.init(rawValue:)) ?? .start
        style.direction = p.direction.flatMap(ParagraphDirection.init(rawValue:)) ?? .auto
        style.wrap = p.wrap.flatMap(WrapMode.init(rawValue:)) ?? .word
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
