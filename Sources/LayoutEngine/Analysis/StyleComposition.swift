/// Spans composed: each stretch between span edges gets the attributes of the spans over it
/// (later spans winning), equal results sharing a style; `styles[0]` is the empty set.
public struct ComposedStyles<Attributes: SpanAttributeSet> {
    public private(set) var styles: [Attributes] = [Attributes()]
    public private(set) var styleRuns = [StyleRun(start: 0, style: 0)]
    /// Style numbers by identity, made when the first span needs it (most requests have none).
    private var numbers: [Attributes.Identity: Int] = [:]

    /// Composes `spans` (in the order given: a later span wins where they overlap), at most
    /// `maxOverlapping` of them over any one place (composition costs their number there).
    public init(_ spans: [AttributedSpan<Attributes>], maxOverlapping: Int) throws(AttributedTextError) {
        guard !spans.isEmpty else { return }
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
            guard active.count <= maxOverlapping else {
                throw .tooManyOverlappingSpans(offset: offset, limit: maxOverlapping)
            }
            var composed = Attributes()
            for i in active.sorted() { composed = spans[i].attributes.applied(over: composed) }
            let style = styleNumber(composed)
            if styleRuns.last?.start == offset { styleRuns.removeLast() }
            // Each inline object is its own: never merged with a neighbour of its style.
            if styleRuns.last?.style != style || composed.isInlineObject {
                styleRuns.append(StyleRun(start: offset, style: style))
            }
        }
    }

    /// The number of the style with `attributes`, added on first use.
    public mutating func styleNumber(_ attributes: Attributes) -> Int {
        if numbers.isEmpty { numbers[Attributes().identity] = 0 }
        let key = attributes.identity
        if let known = numbers[key] { return known }
        styles.append(attributes)
        numbers[key] = styles.count - 1
        return styles.count - 1
    }
}

/// What a span's attributes set of the engine's style, over a base font: each font field
/// named, letter spacing, a baseline shift and an inline object (already in points).
public struct StyleOverrides: Sendable {
    public var family: String?
    public var size: Double?
    public var weight: Int?
    public var style: FontDescriptor.Style?
    /// Empty: the base font's.
    public var features: [FontFeature] = []
    public var variations: [FontVariation] = []
    public var letterSpacing: Double?
    public var baselineOffset: Double?
    public var attachment: Attachment?

    public init() {}
}

extension SpanStyle {
    /// The style `overrides` make over `base`.
    public init(_ overrides: StyleOverrides, over base: FontDescriptor) {
        var font = base
        if let v = overrides.family { font.family = v }
        if let v = overrides.size { font.size = v }
        if let v = overrides.weight { font.weight = v }
        if let v = overrides.style { font.style = v }
        if !overrides.features.isEmpty { font.features = overrides.features }
        if !overrides.variations.isEmpty { font.variations = overrides.variations }
        self.init(font: font, letterSpacing: overrides.letterSpacing ?? 0, baselineOffset: overrides.baselineOffset ?? 0,
                  attachment: overrides.attachment)
    }
}
