/// How much of a layout a request wants back.
public enum LayoutDetail: String, Sendable, CaseIterable, Comparable {
    /// Line boxes only.
    case lines
    /// Line boxes and each line's runs in visual order (range, font, direction, x, width).
    case runs
    /// Runs and their positioned glyphs.
    case glyphs

    public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
}

/// Where lines may break.
public enum WrapMode: String, Sendable, CaseIterable {
    /// At ICU's line-break opportunities; a word wider than the line breaks between clusters.
    case word
    /// Between any two grapheme clusters.
    case char
    /// Nowhere but at mandatory breaks (U+2028 and the like), whatever the width.
    case none
}

/// What to lay out: UTF-16 text, the width to wrap at (nil: no wrapping), the base font,
/// the text's language (BCP 47, "" when unknown), the paragraphs' base direction, where
/// lines may break and how much detail to return.
public struct LayoutRequest: Sendable {
    public var text: [UInt16]
    public var width: Double?
    public var font: FontDescriptor
    public var language: String
    public var direction: ParagraphDirection
    public var wrap: WrapMode
    public var detail: LayoutDetail

    public init(text: [UInt16], width: Double? = nil, font: FontDescriptor = FontDescriptor(),
                language: String = "", direction: ParagraphDirection = .auto, wrap: WrapMode = .word,
                detail: LayoutDetail = .lines) {
        self.text = text
        self.width = width
        self.font = font
        self.language = language
        self.direction = direction
        self.wrap = wrap
        self.detail = detail
    }
}

/// A glyph placed on a line: its id in its font, the UTF-16 offset of the cluster it draws,
/// its advance and its offset from the pen position (points; y up, as fonts measure).
public struct PositionedGlyph: Sendable, Equatable {
    public var id: UInt32
    public var cluster: Int
    public var advance: Double
    public var xOffset: Double
    public var yOffset: Double
}

/// A run of one line: one font and one bidi level, in visual order on its line.
public struct LineRun: Sendable, Equatable {
    /// UTF-16 range of the text the run draws.
    public var start: Int
    public var end: Int
    /// Index into `TextLayout.fonts`.
    public var font: Int
    /// Bidi embedding level (odd: right to left).
    public var level: UInt8
    /// Left edge, absolute, and advance width, in points.
    public var x: Double
    public var width: Double
    /// The glyphs left to right; empty unless glyph detail was asked for.
    public var glyphs: [PositionedGlyph]

    public var isRTL: Bool { level & 1 == 1 }
}

/// A font a layout used: which face, the family it calls itself, at what size.
public struct UsedFont: Sendable, Equatable {
    public var identity: FaceIdentity
    public var family: String
    public var size: Double
    /// Axis values the face was used at (empty for a face that is not variable).
    public var variations: [FontVariation]
}

/// One laid-out line. Offsets are UTF-16 units into the request's text, half-open; the line
/// owns its trailing white space and, for a paragraph's last line, the paragraph separator.
/// Geometry is in points, y down, origin at the layout box's top-left corner.
public struct LineBox: Sendable, Equatable {
    public var start: Int
    public var end: Int
    public var x: Double
    public var y: Double
    /// Advance width of the line's content, without hanging white space (with the hyphen a
    /// soft hyphen shows when the line breaks there).
    public var width: Double
    public var height: Double
    /// Absolute y of the baseline.
    public var baseline: Double
    public var ascent: Double
    public var descent: Double
    /// Whether the line's paragraph runs right to left.
    public var isRTL: Bool
    /// Whether the line ends at a soft hyphen and shows a hyphen there.
    public var hyphenated: Bool
    /// The line's runs in visual order; empty unless run or glyph detail was asked for.
    public var runs: [LineRun]
}

/// A finished layout: lines top to bottom, the used size (widest line, bottom of the last
/// line) and the fonts the runs refer to (with run detail; otherwise the primary font).
public struct TextLayout: Sendable {
    public var lines: [LineBox]
    public var width: Double
    public var height: Double
    public var fonts: [UsedFont]
}
