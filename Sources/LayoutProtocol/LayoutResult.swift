/// One line of a layout result, offsets in the connection's encoding.
public struct LineResult: Sendable, Equatable {
    public var start: Int
    public var end: Int
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public var baseline: Double
    public var ascent: Double
    public var descent: Double

    public init(start: Int, end: Int, x: Double, y: Double, width: Double, height: Double,
                baseline: Double, ascent: Double, descent: Double) {
        self.start = start; self.end = end; self.x = x; self.y = y; self.width = width
        self.height = height; self.baseline = baseline; self.ascent = ascent; self.descent = descent
    }

    public var json: JSONValue {
        ["start": .number(Double(start)), "end": .number(Double(end)), "x": .number(x), "y": .number(y),
         "width": .number(width), "height": .number(height), "baseline": .number(baseline),
         "ascent": .number(ascent), "descent": .number(descent)]
    }

    /// Reads a line back (for clients); nil when a member is missing or mistyped.
    public init?(json: JSONValue) {
        guard let start = json["start"]?.intValue, let end = json["end"]?.intValue,
              let x = json["x"]?.doubleValue, let y = json["y"]?.doubleValue,
              let width = json["width"]?.doubleValue, let height = json["height"]?.doubleValue,
              let baseline = json["baseline"]?.doubleValue, let ascent = json["ascent"]?.doubleValue,
              let descent = json["descent"]?.doubleValue else { return nil }
        self.init(start: start, end: end, x: x, y: y, width: width, height: height, baseline: baseline,
                  ascent: ascent, descent: descent)
    }
}

/// The `layout` result: `{size: {width, height}, truncated, lines, regions}`.
public struct LayoutResult: Sendable, Equatable {
    public var width: Double
    public var height: Double
    public var truncated: Bool
    public var lines: [LineResult]
    /// Hit regions (links, attachments, …); this version reports none.
    public var regions: [JSONValue]

    public init(width: Double, height: Double, truncated: Bool = false, lines: [LineResult], regions: [JSONValue] = []) {
        self.width = width; self.height = height; self.truncated = truncated; self.lines = lines; self.regions = regions
    }

    public var json: JSONValue {
        ["size": ["width": .number(width), "height": .number(height)],
         "truncated": .bool(truncated),
         "lines": .array(lines.map(\.json)),
         "regions": .array(regions)]
    }

    /// Reads a result back (for clients); nil when it is not shaped like one.
    public init?(json: JSONValue) {
        guard let size = json["size"], let width = size["width"]?.doubleValue, let height = size["height"]?.doubleValue,
              let lineValues = json["lines"]?.arrayValue else { return nil }
        var lines: [LineResult] = []
        for v in lineValues {
            guard let line = LineResult(json: v) else { return nil }
            lines.append(line)
        }
        self.init(width: width, height: height, truncated: json["truncated"]?.boolValue ?? false, lines: lines,
                  regions: json["regions"]?.arrayValue ?? [])
    }
}
