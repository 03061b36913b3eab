/// Results of the methods other than `layout` (`LayoutResult`), each written as the wire
/// shows it: members in the order documented in docs/protocol.md, offsets in the
/// connection's encoding, coordinates already rounded for the wire.

/// A method's result as the server sends it.
public protocol WireResult: Sendable {
    var wireJSON: JSONValue { get }
}

extension LayoutResult: WireResult {}

/// Results with no structure of their own (`stats`' counters, a notification's null).
extension JSONValue: WireResult {
    public var wireJSON: JSONValue { self }
}

/// `initialize`: what the server is and answers.
public struct InitializeResult: WireResult {
    public var protocolVersion: Int
    public var offsetEncoding: String
    public var serverName: String
    public var serverVersion: String
    public var methods: [String]
    public var plugins: JSONValue
    public var notifications: [String]
    public var fontFingerprint: String
    /// What the fingerprint hashes, each part's own hash or version (`faces`, `rules`,
    /// `harfbuzz`, `icu`, `layoutd`, `freetype`), in order.
    public var fontFingerprintParts: [(name: String, value: String)]
    /// The daemon's node id, the first part of its handles.
    public var serverNode: String

    public init(protocolVersion: Int, offsetEncoding: String, serverName: String, serverVersion: String,
                methods: [String], plugins: JSONValue, notifications: [String], fontFingerprint: String,
                fontFingerprintParts: [(name: String, value: String)] = [], serverNode: String = "") {
        self.protocolVersion = protocolVersion; self.offsetEncoding = offsetEncoding
        self.serverName = serverName; self.serverVersion = serverVersion
        self.methods = methods; self.plugins = plugins; self.notifications = notifications
        self.fontFingerprint = fontFingerprint
        self.fontFingerprintParts = fontFingerprintParts
        self.serverNode = serverNode
    }

    public var wireJSON: JSONValue {
        ["protocolVersion": .number(Double(protocolVersion)),
         "offsetEncoding": .string(offsetEncoding),
         "server": ["name": .string(serverName), "version": .string(serverVersion), "node": .string(serverNode)],
         "capabilities": ["methods": .array(methods.map { .string($0) }), "plugins": plugins,
                          "notifications": .array(notifications.map { .string($0) })],
         "fontFingerprint": .string(fontFingerprint),
         "fontFingerprintParts": .object(fontFingerprintParts.map { ($0.name, .string($0.value)) })]
    }
}

/// `measure`: the size a text takes, its line count, whether it was cut.
public struct MeasureResult: WireResult {
    public var width: Double
    public var height: Double
    public var lineCount: Int
    public var truncated: Bool
    public var fontFingerprint: String

    public init(width: Double, height: Double, lineCount: Int, truncated: Bool, fontFingerprint: String) {
        self.width = width; self.height = height; self.lineCount = lineCount
        self.truncated = truncated; self.fontFingerprint = fontFingerprint
    }

    /// The result as a value: what `wireJSON` writes.
    public var json: JSONValue {
        ["size": ["width": .number(width), "height": .number(height)],
         "lineCount": .number(Double(lineCount)), "truncated": .bool(truncated),
         "fontFingerprint": .string(fontFingerprint)]
    }

    /// `json` written straight to bytes, members in its order: a chat backend sends many
    /// measures, and each would otherwise build the object only to write it.
    public var wireJSON: JSONValue {
        var writer = JSONWriter(reservingCapacity: 128)
        writer.writeMember(#"{"size":{"width":"#, width)
        writer.writeMember(#","height":"#, height)
        writer.writeMember(#"},"lineCount":"#, Double(lineCount))
        writer.writeRaw(truncated ? #","truncated":true,"fontFingerprint":"# : #","truncated":false,"fontFingerprint":"#)
        writer.writeString(fontFingerprint)
        writer.writeRaw("}")
        return .serialized(writer.bytes)
    }
}

/// `measure` with `widths`: one measure per width, in their order.
public struct MeasuresResult: WireResult {
    public var measures: [MeasureResult]
    public var fontFingerprint: String

    public init(measures: [MeasureResult], fontFingerprint: String) {
        self.measures = measures
        self.fontFingerprint = fontFingerprint
    }

    public var wireJSON: JSONValue {
        ["measures": .array(measures.map { m in
            ["size": ["width": .number(m.width), "height": .number(m.height)],
             "lineCount": .number(Double(m.lineCount)), "truncated": .bool(m.truncated)]
        }), "fontFingerprint": .string(fontFingerprint)]
    }
}

/// What `measure` answers: one measure, or one per width asked for.
public enum MeasureReply: WireResult {
    case one(MeasureResult)
    case many(MeasuresResult)

    public var wireJSON: JSONValue {
        switch self {
        case .one(let m): m.wireJSON
        case .many(let m): m.wireJSON
        }
    }
}

/// `boundaries`: the offsets of the boundaries asked for.
public struct BoundariesResult: WireResult {
    public var offsets: [Int]
    public init(offsets: [Int]) { self.offsets = offsets }
    public var wireJSON: JSONValue { ["offsets": .array(offsets.map { .number(Double($0)) })] }
}

/// `hitTest`: the text position under a point, and the region there if any.
public struct HitTestResult: WireResult {
    public struct Region: Sendable {
        public var kind: String
        public var start: Int
        public var end: Int
        public var value: JSONValue?
        public var enabled: Bool
        public init(kind: String, start: Int, end: Int, value: JSONValue?, enabled: Bool) {
            self.kind = kind; self.start = start; self.end = end; self.value = value; self.enabled = enabled
        }
    }
    public var index: Int
    public var character: Int?
    public var line: Int
    public var affinity: String
    public var region: Region?

    public init(index: Int, character: Int?, line: Int, affinity: String, region: Region?) {
        self.index = index; self.character = character; self.line = line; self.affinity = affinity; self.region = region
    }

    public var wireJSON: JSONValue {
        var members: [(String, JSONValue)] = [
            ("index", .number(Double(index))),
            ("character", character.map { .number(Double($0)) } ?? .null),
            ("line", .number(Double(line))), ("affinity", .string(affinity))]
        if let region {
            var r: [(String, JSONValue)] = [("kind", .string(region.kind)), ("start", .number(Double(region.start))),
                                            ("end", .number(Double(region.end)))]
            if let value = region.value { r.append(("value", value)) }
            if !region.enabled { r.append(("enabled", .bool(false))) }
            members.append(("region", .object(r)))
        }
        return .object(members)
    }
}

/// `caret`: where the caret is drawn, and the weak caret at a direction boundary.
public struct CaretResult: WireResult {
    public var x: Double
    public var y: Double
    public var height: Double
    public var line: Int
    public var weakX: Double?

    public init(x: Double, y: Double, height: Double, line: Int, weakX: Double?) {
        self.x = x; self.y = y; self.height = height; self.line = line; self.weakX = weakX
    }

    public var wireJSON: JSONValue {
        var members: [(String, JSONValue)] = [("x", .number(x)), ("y", .number(y)),
                                              ("height", .number(height)), ("line", .number(Double(line)))]
        if let weakX { members.append(("weak", ["x": .number(weakX)])) }
        return .object(members)
    }
}

/// `rects` of one layout: `{rects}`; of a selection: `{layouts: [{layout, rects}]}`.
public enum RectsResult: WireResult {
    case range([RectParams])
    case selection([(layout: Int, rects: [RectParams])])

    public var wireJSON: JSONValue {
        switch self {
        case .range(let rects):
            return ["rects": .array(rects.map(\.json))]
        case .selection(let parts):
            return ["layouts": .array(parts.map { ["layout": .number(Double($0.layout)), "rects": .array($0.rects.map(\.json))] })]
        }
    }
}

/// `selectedText`: the text selected.
public struct TextResult: WireResult {
    public var text: String
    public init(text: String) { self.text = text }
    public var wireJSON: JSONValue { ["text": .string(text)] }
}

extension RangeResult: WireResult {
    public var wireJSON: JSONValue { json }
}

/// `lineRange`: the line holding an offset, its index, and the paragraph around it.
public struct LineRangeResult: WireResult {
    public var line: RangeResult
    public var index: Int
    public var paragraph: RangeResult

    public init(line: RangeResult, index: Int, paragraph: RangeResult) {
        self.line = line; self.index = index; self.paragraph = paragraph
    }

    public var wireJSON: JSONValue {
        ["start": .number(Double(line.start)), "end": .number(Double(line.end)), "line": .number(Double(index)),
         "paragraph": paragraph.json]
    }
}

/// `update`: the layout after the edits, and what changed.
public struct UpdateResult: WireResult {
    public struct Diff: Sendable {
        public var firstLine: Int
        public var removed: Int
        public var added: Int
        public var inserted: [RangeResult]
        public var reusedParagraphs: Int
        /// Paragraphs shaped again (not taken over from the retained layout's shaping).
        public var reshapedParagraphs: Int
        /// With a viewport: the lines in it, and those of them that changed (document line
        /// indices, half-open; the changed range is empty when none did).
        public var viewportLines: Range<Int>?
        public var viewportChanged: Range<Int>?
        public init(firstLine: Int, removed: Int, added: Int, inserted: [RangeResult], reusedParagraphs: Int,
                    reshapedParagraphs: Int) {
            self.firstLine = firstLine; self.removed = removed; self.added = added
            self.inserted = inserted; self.reusedParagraphs = reusedParagraphs
            self.reshapedParagraphs = reshapedParagraphs
        }
    }
    public var layout: LayoutResult
    public var diff: Diff

    public init(layout: LayoutResult, diff: Diff) { self.layout = layout; self.diff = diff }

    public var wireJSON: JSONValue {
        var diffMembers: [(String, JSONValue)] = [
            ("firstLine", .number(Double(diff.firstLine))), ("removed", .number(Double(diff.removed))),
            ("added", .number(Double(diff.added))), ("inserted", .array(diff.inserted.map(\.json))),
            ("reusedParagraphs", .number(Double(diff.reusedParagraphs))),
            ("reshapedParagraphs", .number(Double(diff.reshapedParagraphs)))]
        if let lines = diff.viewportLines, let changed = diff.viewportChanged {
            diffMembers.append(("viewport", [
                "lines": ["start": .number(Double(lines.lowerBound)), "end": .number(Double(lines.upperBound))],
                "changed": ["start": .number(Double(changed.lowerBound)), "end": .number(Double(changed.upperBound))]]))
        }
        return .object((layout.wireJSON.objectMembers ?? []) + [("diff", .object(diffMembers))])
    }
}

/// `release`: whether the handle was held.
public struct ReleaseResult: WireResult {
    public var released: Bool
    public init(released: Bool) { self.released = released }
    public var wireJSON: JSONValue { ["released": .bool(released)] }
}

/// `render`: the picture.
public struct RenderResult: WireResult {
    public var format: String
    public var width: Double
    public var height: Double
    public var scale: Double
    /// PNG as base64, or the SVG document.
    public var data: String
    public var fontFingerprint: String

    public init(format: String, width: Double, height: Double, scale: Double, data: String, fontFingerprint: String) {
        self.format = format; self.width = width; self.height = height; self.scale = scale
        self.data = data; self.fontFingerprint = fontFingerprint
    }

    public var wireJSON: JSONValue {
        ["format": .string(format), "width": .number(width), "height": .number(height),
         "scale": .number(scale), "data": .string(data), "fontFingerprint": .string(fontFingerprint)]
    }
}

/// `reload`: the fingerprint of the fonts now in force.
public struct ReloadResult: WireResult {
    public var fontFingerprint: String
    public init(fontFingerprint: String) { self.fontFingerprint = fontFingerprint }
    public var wireJSON: JSONValue { ["fontFingerprint": .string(fontFingerprint)] }
}

/// `ping`: `{pong: true}`.
public struct PingResult: WireResult {
    public init() {}
    public var wireJSON: JSONValue { ["pong": true] }
}
