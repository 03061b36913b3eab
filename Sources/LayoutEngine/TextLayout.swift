/// A glyph placed on a line: its id in its font, the UTF-16 offset of the cluster it draws,
/// its advance and its offset from the pen position (points; y up, as fonts measure).
public struct PositionedGlyph: Sendable, Equatable {
    public var id: UInt32
    public var cluster: Int
    public var advance: Double
    public var xOffset: Double
    public var yOffset: Double
}

/// A run of one line: one font, one style and one bidi level, in visual order on its line.
public struct LineRun: Sendable, Equatable {
    /// UTF-16 range of the text the run draws (empty for the truncation token).
    public var start: Int
    public var end: Int
    /// Index into `TextLayout.fonts`.
    public var font: Int
    /// Index into the request's styles.
    public var style: Int
    /// Bidi embedding level (odd: right to left).
    public var level: UInt8
    /// Left edge, absolute, and advance width, in points.
    public var x: Double
    public var width: Double
    /// Shift of the baseline (up), from the style.
    public var baselineOffset: Double
    /// Whether the run draws the truncation token rather than the text.
    public var isToken: Bool
    /// The glyphs left to right; empty unless glyph detail was asked for.
    public var glyphs: [PositionedGlyph]

    public var isRTL: Bool { level & 1 == 1 }
}

/// A font a layout used: which face, the family it calls itself, at what size.
public struct UsedFont: Sendable, Equatable, Hashable {
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
    /// soft hyphen shows when the line breaks there, and the truncation token).
    public var width: Double
    public var height: Double
    /// Absolute y of the baseline.
    public var baseline: Double
    public var ascent: Double
    public var descent: Double
    /// Whether the line's paragraph runs right to left.
    public var isRTL: Bool
    /// Whether the line ends at a soft hyphen and shows a hyphen.
    public var hyphenated: Bool
    /// Whether the line shows the truncation token.
    public var showsToken: Bool
    /// Whether the line is its paragraph's last (it owns the paragraph separator, if any).
    public var endsParagraph: Bool = false
    /// The line's runs in visual order; empty unless runs were asked for or are needed.
    public var runs: [LineRun]
}

/// A finished layout: lines top to bottom, the used size (widest line plus insets, bottom
/// of the last line plus insets) and the fonts the runs refer to (with run detail; otherwise
/// the primary font). With truncation, which text stays visible and where the token is.
public struct TextLayout: Sendable {
    public var lines: [LineBox]
    public var width: Double
    public var height: Double
    public var fonts: [UsedFont]
    public var truncated: Bool
    /// The text that stays visible, as ranges in text order (all of it when not truncated).
    public var visibleRanges: [Range<Int>]
    /// The text the truncation token stands for, and the token's rectangle.
    public var hiddenRange: Range<Int>?
    public var tokenRect: Rect?
    /// `positions[i]`: the sum of the final advances (after tabs, justification and letter
    /// spacing) of units `0..<i` of the text, for geometry queries; empty without geometry.
    var positions: PositionTable
    /// Per offset (count + 1): `graphemeBoundary`, `clusterBoundary` and `characterStart`
    /// bits; empty without geometry.
    var boundaryKinds: BoundaryTable
    /// With `keepsReusable`: what a layout of the edited text can take over.
    public var reusable: ReusableLayout?
    /// How many paragraphs were taken over from `previous` rather than laid out.
    public var reusedParagraphs: Int
    /// How many paragraphs were shaped, rather than their shaping taken over from `previous`.
    public var reshapedParagraphs: Int
    /// Memory the kept shaping (`reusable`) holds, estimated.
    public var shapingBytes: Int
    /// How many runs and glyphs the lines hold, counted as lines are made or taken over (for
    /// memory accounting, without a pass over every line).
    public var runCount = 0
    public var glyphCount = 0
    /// How many lines at the top were taken over from `previous` exactly as that layout had
    /// them (same place, same fonts, not moved): a diff against it can start after them.
    public var unchangedLeadingLines = 0

    static let graphemeBoundary: UInt8 = 1
    static let clusterBoundary: UInt8 = 2
    /// A character (code point) starts here: not the second half of a surrogate pair.
    static let characterStart: UInt8 = 4
}
