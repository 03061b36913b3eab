/// `measure` params: the layout params, and instead of `width` optionally `widths`, one
/// measure each from one shaping.
public struct MeasureParams: Sendable {
    public var layout: LayoutParams
    /// nil: one measure at `layout.width`.
    public var widths: [Double]?

    /// Most widths one request may ask for (each costs a pass over the text's lines).
    public static let maxWidths = 64

    public init(layout: LayoutParams, widths: [Double]? = nil) {
        self.layout = layout
        self.widths = widths
    }

    public init(json params: JSONValue?) throws(RPCError) {
        layout = try LayoutParams(json: params)
        let reader = try ParamReader(params)
        guard let v = reader.member("widths") else { return }
        guard reader.member("width") == nil else {
            throw .invalidParams(field: "widths", "cannot be given with `width`: give one or the other")
        }
        guard let list = v.arrayValue, !list.isEmpty, list.count <= Self.maxWidths else {
            throw .invalidParams(field: "widths", "must be an array of 1 to \(Self.maxWidths) widths in points, got \(JSONWriter.string(v).prefix(80))")
        }
        var widths: [Double] = []
        widths.reserveCapacity(list.count)
        for (i, item) in list.enumerated() {
            guard let d = item.doubleValue, d.isFinite, (0...LayoutParams.maxWidth).contains(d) else {
                throw .invalidParams(field: "widths[\(i)]", "must be a number of points from 0 to 1e9, got \(JSONWriter.string(item).prefix(80))")
            }
            widths.append(d)
        }
        self.widths = widths
    }
}
