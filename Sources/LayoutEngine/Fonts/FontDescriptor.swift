/// What a client asks for: a family name (or generic family such as `sans-serif`), a size in
/// points, a weight (1–1000, 400 regular, 700 bold) and a style.
public struct FontDescriptor: Hashable, Sendable {
    public enum Style: String, Hashable, Sendable, CaseIterable {
        case normal, italic, oblique
    }

    public var family: String
    public var size: Double
    public var weight: Int
    public var style: Style
    /// OpenType features to turn on or off (`kern` 0, `smcp` 1, `ss01` 1, …).
    public var features: [FontFeature]
    /// Variable-font axis values (`wdth` 80, `opsz` 12, …). Where a face has a `wght` axis
    /// and no `wght` value is given, `weight` sets it.
    public var variations: [FontVariation]

    public init(family: String = "sans-serif", size: Double = 16, weight: Int = 400, style: Style = .normal,
                features: [FontFeature] = [], variations: [FontVariation] = []) {
        self.family = family
        self.size = size
        self.weight = weight
        self.style = style
        self.features = features
        self.variations = variations
    }

    /// The part of the descriptor that selects font files (size does not: faces are scalable
    /// and shaped at their design units).
    var selectionKey: SelectionKey { SelectionKey(family: family, weight: weight, style: style) }

    struct SelectionKey: Hashable, Sendable {
        var family: String
        var weight: Int
        var style: Style
    }
}

/// An OpenType feature setting: a four-letter tag and a value (0 off, 1 on, n the n-th
/// alternate).
public struct FontFeature: Hashable, Sendable {
    public var tag: String
    public var value: UInt32
    public init(tag: String, value: UInt32) { self.tag = tag; self.value = value }
}

/// A variable-font axis value: a four-letter axis tag and a value in the axis's units.
public struct FontVariation: Hashable, Sendable {
    public var tag: String
    public var value: Double
    public init(tag: String, value: Double) { self.tag = tag; self.value = value }
}
