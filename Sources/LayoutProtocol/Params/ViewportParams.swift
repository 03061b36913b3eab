/// `viewport: {y, height}` on `layout` and `update`: the band of the layout box (points,
/// y down, in the same space as `lines`) the client shows. The result lists only the lines
/// and regions that meet it; its `size` and `lineCount` still describe the whole layout.
public struct ViewportParams: Sendable, Equatable {
    public var y: Double
    public var height: Double

    /// Largest `y` and `height` accepted, in points.
    public static let maxExtent = 1e12

    public init(y: Double, height: Double) { self.y = y; self.height = height }

    /// Reads `viewport` from `reader`; nil when absent.
    static func read(_ reader: ParamReader) throws(RPCError) -> ViewportParams? {
        guard let r = try reader.object("viewport") else { return nil }
        try r.rejectUnknownKeys(["y", "height"])
        guard let y = try r.number("y", in: -maxExtent...maxExtent, what: "a number of points") else {
            throw .invalidParams(field: r.field("y"), "is required (the top of the viewport, in points)")
        }
        guard let height = try r.number("height", in: 0...maxExtent, what: "a number of points ≥ 0") else {
            throw .invalidParams(field: r.field("height"), "is required (the viewport's height, in points, ≥ 0)")
        }
        return ViewportParams(y: y, height: height)
    }

    /// Whether the band `[top, top + extent)` meets the viewport (a viewport of height 0
    /// meets what lies across its `y`).
    public func meets(top: Double, extent: Double) -> Bool {
        top < y + height && top + extent > y
    }
}
