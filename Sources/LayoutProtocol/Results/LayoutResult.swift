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
    /// Whether the line ends at a soft hyphen that shows a hyphen (written only when true).
    public var hyphenated: Bool
    /// The line's runs in visual order (with `detail` runs or glyphs; nil otherwise).
    public var runs: [RunResult]?
    /// With `decorations`: what the line renderer asked to draw on this line.
    public var decorations: [JSONValue]?

    public init(start: Int, end: Int, x: Double, y: Double, width: Double, height: Double,
                baseline: Double, ascent: Double, descent: Double, hyphenated: Bool = false, runs: [RunResult]? = nil) {
        self.start = start; self.end = end; self.x = x; self.y = y; self.width = width
        self.height = height; self.baseline = baseline; self.ascent = ascent; self.descent = descent
        self.hyphenated = hyphenated; self.runs = runs
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("start", .number(Double(start))), ("end", .number(Double(end))), ("x", .number(x)), ("y", .number(y)),
            ("width", .number(width)), ("height", .number(height)), ("baseline", .number(baseline)),
            ("ascent", .number(ascent)), ("descent", .number(descent))]
        if hyphenated { members.append(("hyphenated", true)) }
        if let runs { members.append(("runs", .array(runs.map(\.json)))) }
        if let decorations { members.append(("decorations", .array(decorations))) }
        return .object(members)
    }

    /// Writes `json`'s text straight to `writer` (the same bytes, without building values).
    public func write(to writer: inout JSONWriter) {
        // The nine numbers formatted in place and appended at once (a line's usual whole).
        writer.append(upTo: 9 * (16 + JSONWriter.memberNumberRoom)) { text in
            var n = JSONWriter.member("{\"start\":", Double(start), at: text)
            n += JSONWriter.member(",\"end\":", Double(end), at: text + n)
            n += JSONWriter.member(",\"x\":", x, at: text + n)
            n += JSONWriter.member(",\"y\":", y, at: text + n)
            n += JSONWriter.member(",\"width\":", width, at: text + n)
            n += JSONWriter.member(",\"height\":", height, at: text + n)
            n += JSONWriter.member(",\"baseline\":", baseline, at: text + n)
            n += JSONWriter.member(",\"ascent\":", ascent, at: text + n)
            n += JSONWriter.member(",\"descent\":", descent, at: text + n)
            return n
        }
        if hyphenated { writer.writeRaw(",\"hyphenated\":true") }
        if let runs { writer.writeArray(",\"runs\":", runs) { $1.write(to: &$0) } }
        if let decorations { writer.writeArray(",\"decorations\":", decorations) { $0.write($1) } }
        writer.writeRaw("}")
    }

    /// Reads a line back (for clients); nil when a member is missing or mistyped.
    public init?(json: JSONValue) {
        guard let start = json["start"]?.intValue, let end = json["end"]?.intValue,
              let x = json["x"]?.doubleValue, let y = json["y"]?.doubleValue,
              let width = json["width"]?.doubleValue, let height = json["height"]?.doubleValue,
              let baseline = json["baseline"]?.doubleValue, let ascent = json["ascent"]?.doubleValue,
              let descent = json["descent"]?.doubleValue else { return nil }
        var runs: [RunResult]?
        if let value = json["runs"] {
            guard let decoded = value.decodedArray(RunResult.init(json:)) else { return nil }
            runs = decoded
        }
        self.init(start: start, end: end, x: x, y: y, width: width, height: height, baseline: baseline,
                  ascent: ascent, descent: descent, hyphenated: json["hyphenated"]?.boolValue ?? false, runs: runs)
        decorations = json["decorations"]?.arrayValue
    }
}

/// A run of a line: one font, one direction; `font` indexes the result's `fonts`.
public struct RunResult: Sendable, Equatable {
    public var start: Int
    public var end: Int
    public var font: Int
    /// Index into the result's `styles`.
    public var style: Int
    /// Whether the run draws the truncation token (its range is the text it stands for: empty).
    public var token: Bool
    /// Bidi embedding level; odd levels run right to left.
    public var level: Int
    public var x: Double
    public var width: Double
    /// With `detail: "glyphs"`: the glyphs left to right.
    public var glyphs: [GlyphResult]?

    public var direction: String { level % 2 == 1 ? "rtl" : "ltr" }

    public init(start: Int, end: Int, font: Int, style: Int = 0, token: Bool = false, level: Int, x: Double, width: Double,
                glyphs: [GlyphResult]? = nil) {
        self.start = start; self.end = end; self.font = font; self.style = style; self.token = token
        self.level = level; self.x = x; self.width = width
        self.glyphs = glyphs
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("start", .number(Double(start))), ("end", .number(Double(end))), ("font", .number(Double(font))),
            ("style", .number(Double(style))),
            ("direction", .string(direction)), ("level", .number(Double(level))), ("x", .number(x)), ("width", .number(width))]
        if token { members.append(("token", true)) }
        if let glyphs { members.append(("glyphs", .array(glyphs.map(\.json)))) }
        return .object(members)
    }

    /// Writes `json`'s text straight to `writer` (the same bytes, without building values).
    public func write(to writer: inout JSONWriter) {
        writer.writeMember("{\"start\":", Double(start))
        writer.writeMember(",\"end\":", Double(end))
        writer.writeMember(",\"font\":", Double(font))
        writer.writeMember(",\"style\":", Double(style))
        writer.writeMember(level % 2 == 1 ? ",\"direction\":\"rtl\",\"level\":" : ",\"direction\":\"ltr\",\"level\":",
                           Double(level))
        writer.writeMember(",\"x\":", x)
        writer.writeMember(",\"width\":", width)
        if token { writer.writeRaw(",\"token\":true") }
        if let glyphs { writer.writeArray(",\"glyphs\":", glyphs) { $1.write(to: &$0) } }
        writer.writeRaw("}")
    }

    public init?(json: JSONValue) {
        guard let start = json["start"]?.intValue, let end = json["end"]?.intValue, let font = json["font"]?.intValue,
              let level = json["level"]?.intValue, let x = json["x"]?.doubleValue, let width = json["width"]?.doubleValue
        else { return nil }
        var glyphs: [GlyphResult]?
        if let value = json["glyphs"] {
            guard let decoded = value.decodedArray(GlyphResult.init(json:)) else { return nil }
            glyphs = decoded
        }
        self.init(start: start, end: end, font: font, style: json["style"]?.intValue ?? 0,
                  token: json["token"]?.boolValue ?? false, level: level, x: x, width: width, glyphs: glyphs)
    }
}

/// A glyph: its id in the run's font, the offset of the cluster it draws, its advance, and
/// its offset from the pen position (`dx` right, `dy` down, as every coordinate here).
public struct GlyphResult: Sendable, Equatable {
    public var id: Int
    public var cluster: Int
    public var advance: Double
    public var dx: Double
    public var dy: Double

    public init(id: Int, cluster: Int, advance: Double, dx: Double, dy: Double) {
        self.id = id; self.cluster = cluster; self.advance = advance; self.dx = dx; self.dy = dy
    }

    public var json: JSONValue {
        ["id": .number(Double(id)), "cluster": .number(Double(cluster)), "advance": .number(advance),
         "dx": .number(dx), "dy": .number(dy)]
    }

    /// Writes `json`'s text straight to `writer` (the same bytes, without building values).
    public func write(to writer: inout JSONWriter) {
        writer.writeMember("{\"id\":", Double(id))
        writer.writeMember(",\"cluster\":", Double(cluster))
        writer.writeMember(",\"advance\":", advance)
        writer.writeMember(",\"dx\":", dx)
        writer.writeMember(",\"dy\":", dy)
        writer.writeRaw("}")
    }

    public init?(json: JSONValue) {
        guard let id = json["id"]?.intValue, let cluster = json["cluster"]?.intValue,
              let advance = json["advance"]?.doubleValue, let dx = json["dx"]?.doubleValue, let dy = json["dy"]?.doubleValue
        else { return nil }
        self.init(id: id, cluster: cluster, advance: advance, dx: dx, dy: dy)
    }
}

/// A font a result refers to: the family it calls itself, its file and face index, and size.
public struct FontResult: Sendable, Equatable {
    public var family: String
    public var file: String
    public var index: Int
    public var size: Double
    /// Axis values of a variable font, by tag (written only when there are any).
    public var variations: [String: Double]

    public init(family: String, file: String, index: Int, size: Double, variations: [String: Double] = [:]) {
        self.family = family; self.file = file; self.index = index; self.size = size; self.variations = variations
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("family", .string(family)), ("file", .string(file)), ("index", .number(Double(index))), ("size", .number(size))]
        if !variations.isEmpty {
            members.append(("variations", .object(variations.sorted { $0.key < $1.key }.map { ($0.key, .number($0.value)) })))
        }
        return .object(members)
    }

    public init?(json: JSONValue) {
        guard let family = json["family"]?.stringValue, let file = json["file"]?.stringValue,
              let index = json["index"]?.intValue, let size = json["size"]?.doubleValue else { return nil }
        var variations: [String: Double] = [:]
        if case .object(let members)? = json["variations"] {
            for (k, v) in members { variations[k] = v.doubleValue }
        }
        self.init(family: family, file: file, index: index, size: size, variations: variations)
    }
}

/// The `layout` result: `{size: {width, height}, truncated, lines, regions}`.
public struct LayoutResult: Sendable, Equatable {
    public var width: Double
    public var height: Double
    public var truncated: Bool
    public var lines: [LineResult]
    /// Hit regions: links, data spans, the truncation token.
    public var regions: [RegionResult]
    /// The fonts used: those the runs refer to, or without run detail the primary font.
    public var fonts: [FontResult]
    /// With run detail: the styles runs refer to (index 0 is the base style).
    public var styles: [JSONValue]?
    /// When truncated: the text that stays visible, in text order.
    public var visible: [RangeResult]?
    /// With `retain: true`: the handle for follow-up queries.
    public var handle: String?
    /// Identifies the fonts the layout was made with; it changes when fonts or the
    /// configuration change (after a reload), so clients know to drop their caches.
    public var fontFingerprint: String?
    /// Plugin calls that failed without failing the request (written only when some did).
    public var warnings: [String] = []
    /// With a viewport: how many lines the whole layout has (`lines` lists only some).
    public var lineCount: Int?

    public init(width: Double, height: Double, truncated: Bool = false, lines: [LineResult], regions: [RegionResult] = [],
                fonts: [FontResult] = [], styles: [JSONValue]? = nil, visible: [RangeResult]? = nil, handle: String? = nil,
                fontFingerprint: String? = nil) {
        self.width = width; self.height = height; self.truncated = truncated; self.lines = lines; self.regions = regions
        self.fonts = fonts; self.styles = styles; self.visible = visible; self.handle = handle
        self.fontFingerprint = fontFingerprint
    }

    public var json: JSONValue { object(lines: .array(lines.map(\.json))) }

    /// The result's members, with `lines` as given.
    private func object(lines: JSONValue) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if let handle { members.append(("handle", .string(handle))) }
        members += [
            ("size", ["width": .number(width), "height": .number(height)]),
            ("truncated", .bool(truncated))]
        if let lineCount { members.append(("lineCount", .number(Double(lineCount)))) }
        members += [
            ("lines", lines),
            ("regions", .array(regions.map(\.json))),
            ("fonts", .array(fonts.map(\.json)))]
        if let styles { members.append(("styles", .array(styles))) }
        if let visible { members.append(("visible", .array(visible.map(\.json)))) }
        if let fontFingerprint { members.append(("fontFingerprint", .string(fontFingerprint))) }
        if !warnings.isEmpty { members.append(("warnings", .array(warnings.map { .string($0) }))) }
        return .object(members)
    }

    /// `json` as the server sends it: the same text, with the lines (the bulk of a result)
    /// written straight to bytes rather than built as values first.
    public var wireJSON: JSONValue {
        var writer = JSONWriter(reservingCapacity: 64 + lines.count * 160)
        writer.writeArray("", lines) { $1.write(to: &$0) }
        return object(lines: .serialized(writer.bytes))
    }

    /// Reads a result back (for clients); nil when it is not shaped like one.
    public init?(json: JSONValue) {
        guard let size = json["size"], let width = size["width"]?.doubleValue, let height = size["height"]?.doubleValue,
              let lines = json["lines"]?.decodedArray(LineResult.init(json:)),
              let fonts = (json["fonts"] ?? []).decodedArray(FontResult.init(json:)) else { return nil }
        guard let regions = (json["regions"] ?? []).decodedArray(RegionResult.init(json:)) else { return nil }
        self.init(width: width, height: height, truncated: json["truncated"]?.boolValue ?? false, lines: lines,
                  regions: regions, fonts: fonts, styles: json["styles"]?.arrayValue,
                  visible: json["visible"]?.decodedArray(RangeResult.init(json:)), handle: json["handle"]?.stringValue,
                  fontFingerprint: json["fontFingerprint"]?.stringValue)
        lineCount = json["lineCount"]?.intValue
    }
}

extension JSONValue {
    /// The elements of an array, each decoded with `decode`; nil when this is not an array
    /// or an element does not decode.
    public func decodedArray<T>(_ decode: (JSONValue) -> T?) -> [T]? {
        guard case .array(let elements) = self else { return nil }
        var result: [T] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard let value = decode(element) else { return nil }
            result.append(value)
        }
        return result
    }
}

/// A range of the text, in the connection's offset encoding.
public struct RangeResult: Sendable, Equatable {
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) { self.start = start; self.end = end }

    public var json: JSONValue { ["start": .number(Double(start)), "end": .number(Double(end))] }

    public init?(json: JSONValue) {
        guard let start = json["start"]?.intValue, let end = json["end"]?.intValue else { return nil }
        self.init(start: start, end: end)
    }
}

/// A hit region: what it is (`link`, `data`, `truncation`, …), the text it covers, what it
/// points to, and its rectangles (one per line fragment).
public struct RegionResult: Sendable, Equatable {
    public var kind: String
    public var start: Int
    public var end: Int
    public var value: JSONValue?
    public var rects: [RectParams]
    /// False for a disabled link (written as `enabled: false`; left out when true).
    public var enabled: Bool

    public init(kind: String, start: Int, end: Int, value: JSONValue?, rects: [RectParams], enabled: Bool = true) {
        self.kind = kind; self.start = start; self.end = end; self.value = value; self.rects = rects; self.enabled = enabled
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("kind", .string(kind)), ("start", .number(Double(start))),
                                              ("end", .number(Double(end)))]
        if let value { members.append(("value", value)) }
        if !enabled { members.append(("enabled", .bool(false))) }
        members.append(("rects", .array(rects.map(\.json))))
        return .object(members)
    }

    public init?(json: JSONValue) {
        guard let kind = json["kind"]?.stringValue, let start = json["start"]?.intValue, let end = json["end"]?.intValue,
              let rects = json["rects"]?.decodedArray({ (v: JSONValue) -> RectParams? in
                  guard let x = v["x"]?.doubleValue, let y = v["y"]?.doubleValue, let w = v["width"]?.doubleValue,
                        let h = v["height"]?.doubleValue else { return nil }
                  return RectParams(x: x, y: y, width: w, height: h)
              }) else { return nil }
        self.init(kind: kind, start: start, end: end, value: json["value"], rects: rects,
                  enabled: json["enabled"]?.boolValue ?? true)
    }
}
