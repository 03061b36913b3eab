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

    public init(family: String = "sans-serif", size: Double = 16, weight: Int = 400, style: Style = .normal) {
        self.family = family
        self.size = size
        self.weight = weight
        self.style = style
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
