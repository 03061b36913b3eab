/// The layout params an `update` may change besides its edits: each member given replaces
/// the retained layout's — `paragraph` member by member (the rest of its paragraph style
/// stays), the others whole. `width: null` means no wrapping, as in `layout`.
public struct LayoutChanges: Sendable {
    /// Present: the new width (nil inside: no wrapping).
    public var width: Double??
    public var font: FontSpec?
    public var language: String?
    public var scale: Double?
    public var insets: InsetsParams?
    public var exclusions: [RectParams]?
    /// The `paragraph` object as sent, read over the retained style in `applied(to:)`.
    var paragraph: JSONValue?

    /// The members `update` reads besides `handle`, `edits` and `result`.
    public static let members = ["width", "font", "language", "scale", "insets", "exclusions", "paragraph"]

    public init() {}

    /// Reads and validates the changes in `update`'s params.
    public init(_ reader: ParamReader) throws(RPCError) {
        if reader.value["width"] != nil { width = .some(try LayoutParams.width(reader)) }
        font = try reader.object("font").map { (r) throws(RPCError) in try FontSpec(r) }
        language = try reader.string("language", maxLength: 64)
        if let language { try LayoutParams.validateLanguage(language) }
        scale = try reader.number("scale", in: 0.01...100, what: "a factor from 0.01 to 100")
        insets = try reader.object("insets").map { (r) throws(RPCError) in try InsetsParams(r) }
        exclusions = try LayoutParams.exclusions(reader)
        if let p = try reader.object("paragraph") {
            _ = try ParagraphParams(p)   // validated now, applied over the retained style later
            paragraph = p.value
        }
    }

    /// Whether nothing is changed.
    public var isEmpty: Bool {
        width == nil && font == nil && language == nil && scale == nil && insets == nil && exclusions == nil
            && paragraph == nil
    }

    /// `base` with these changes.
    public func applied(to base: LayoutParams) throws(RPCError) -> LayoutParams {
        var params = base
        if let width { params.width = width }
        if let font { params.font = font }
        if let language { params.language = language }
        if let scale { params.scale = scale }
        if let insets { params.insets = insets }
        if let exclusions { params.exclusions = exclusions }
        if let paragraph {
            params.paragraph = try ParagraphParams(ParamReader(paragraph, path: "paragraph"), over: base.paragraph)
        }
        return params
    }
}
