/// A client's set of span attributes, as the engine composes them: an empty set, one set
/// applied over another, an identity equal for equal sets (equal results share a style), and
/// whether the set makes an inline object.
public protocol SpanAttributeSet {
    associatedtype Identity: Hashable
    /// No attribute set.
    init()
    /// These attributes over `base`: every attribute set here wins.
    func applied(over base: Self) -> Self
    /// Equal exactly for sets that compose alike.
    var identity: Identity { get }
    /// Whether text with these attributes lays out as one inline object (an attachment).
    var isInlineObject: Bool { get }
}

/// Attributes over a range of text (UTF-16 offsets, half-open).
public struct AttributedSpan<Attributes: SpanAttributeSet> {
    public var start: Int
    public var end: Int
    public var attributes: Attributes

    public init(start: Int, end: Int, attributes: Attributes) {
        self.start = start
        self.end = end
        self.attributes = attributes
    }
}

/// Why spans could not be composed.
public enum AttributedTextError: Error, Equatable, Sendable {
    /// More than the allowed number of spans lie over the place at `offset` (UTF-16).
    case tooManyOverlappingSpans(offset: Int, limit: Int)
}

/// Text and the spans over it, made ready for the engine: span edges snapped outward to
/// grapheme cluster boundaries (UAX #29: a style never splits a user-perceived character),
/// found once for the text and handed on to the layout (`LayoutRequest.graphemes`), and the
/// spans composed into styles and style runs.
public struct AttributedText<Attributes: SpanAttributeSet> {
    public let text: [UInt16]
    /// Longest text whose boundaries are found (the engine's `maxTextLength`).
    let maxLength: Int
    /// The grapheme cluster boundaries, 0 and the end included; found on first need.
    public private(set) var graphemes: [Int32]?

    public init(text: [UInt16], maxLength: Int) {
        self.text = text
        self.maxLength = maxLength
    }

    /// `start..<end` widened to the grapheme boundaries at or around it.
    public mutating func snapped(_ start: Int, _ end: Int) throws(EngineError) -> (start: Int, end: Int) {
        let g = try boundaries()
        let first = g[max(0, g.partitionPoint { Int($0) <= start } - 1)]
        let last = g[min(g.count - 1, g.partitionPoint { Int($0) < end })]
        return (Int(first), Int(last))
    }

    private mutating func boundaries() throws(EngineError) -> [Int32] {
        if let graphemes { return graphemes }
        guard text.count <= maxLength else { throw .textTooLong(length: text.count, limit: maxLength) }
        let found = text.withUnsafeBufferPointer { GraphemeBreaks.boundaries($0) }
        graphemes = found
        return found
    }
}
