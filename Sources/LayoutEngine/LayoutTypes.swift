/// How much of a layout a request wants back.
public enum LayoutDetail: String, Sendable, CaseIterable, Comparable {
    /// Line boxes only.
    case lines
    /// Line boxes and each line's runs in visual order (range, font, style, direction, x, width).
    case runs
    /// Runs and their positioned glyphs.
    case glyphs

    /// How much it asks for: lines < runs < glyphs.
    var rank: Int {
        switch self {
        case .lines: 0
        case .runs: 1
        case .glyphs: 2
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }
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

/// How a paragraph's lines sit between its edges.
public enum TextAlignment: String, Sendable, CaseIterable {
    /// The leading edge: left in left-to-right paragraphs, right in right-to-left ones.
    case start
    /// The trailing edge.
    case end
    case left, right, center
    /// Both edges: the spaces between words stretch; a paragraph's last line (and a line
    /// ended by a line separator) is set at the start.
    case justify
}

/// A tab stop: a position from the paragraph's leading edge and how the text after the
/// tab lines up with it.
public struct TabStop: Sendable, Equatable {
    public enum Alignment: String, Sendable, CaseIterable {
        /// The text starts at the stop.
        case left
        /// The text ends at the stop.
        case right
        /// The text is centered on the stop.
        case center
        /// The text's decimal separator ("." or ",") sits at the stop.
        case decimal
    }

    public var location: Double
    public var alignment: Alignment

    public init(location: Double, alignment: Alignment = .left) {
        self.location = location
        self.alignment = alignment
    }
}

/// Paragraph style: alignment, spacing, line height, indents, tab stops, direction, wrapping.
/// All lengths in points.
public struct ParagraphStyle: Sendable {
    public var align: TextAlignment = .start
    /// Extra space after every line but the last.
    public var lineSpacing: Double = 0
    /// A multiple of the natural line height, then clamped to the minimum and maximum.
    public var lineHeightMultiple: Double?
    public var minimumLineHeight: Double?
    public var maximumLineHeight: Double?
    /// Space after each paragraph but the last, and before each but the first.
    public var paragraphSpacing: Double = 0
    public var paragraphSpacingBefore: Double = 0
    /// Indent of the leading edge of every line, plus `firstLineIndent` on a paragraph's
    /// first line; indent of the trailing edge.
    public var headIndent: Double = 0
    public var firstLineIndent: Double = 0
    public var tailIndent: Double = 0
    public var tabStops: [TabStop] = []
    /// Past the last tab stop, tabs go to the next multiple of this.
    public var defaultTabInterval: Double = 28
    public var direction: ParagraphDirection = .auto
    public var wrap: WrapMode = .word

    public init() {}
}

/// What a range of text looks like to the engine: its font, extra space after each cluster,
/// and a shift of its baseline (up). Colors, decorations and links are the client's business
/// and do not reach the engine.
public struct SpanStyle: Hashable, Sendable {
    public var font: FontDescriptor
    public var letterSpacing: Double
    public var baselineOffset: Double
    /// With an attachment, each style run of this style lays out as one inline object of
    /// that size on the baseline (as a CoreText run delegate), not as its text.
    public var attachment: Attachment?

    public init(font: FontDescriptor = FontDescriptor(), letterSpacing: Double = 0, baselineOffset: Double = 0,
                attachment: Attachment? = nil) {
        self.font = font
        self.letterSpacing = letterSpacing
        self.baselineOffset = baselineOffset
        self.attachment = attachment
    }
}

/// An inline object's size: its advance, and how far it reaches above and below the baseline.
public struct Attachment: Hashable, Sendable {
    public var width: Double
    public var ascent: Double
    public var descent: Double

    public init(width: Double, ascent: Double, descent: Double) {
        self.width = width; self.ascent = ascent; self.descent = descent
    }
}

/// Where a style starts: from `start` (UTF-16) up to the next run's start, text has
/// `styles[style]`. Runs are sorted, the first starts at 0; starts should be grapheme
/// boundaries (the server snaps span edges outward).
public struct StyleRun: Sendable, Equatable {
    public var start: Int
    public var style: Int

    public init(start: Int, style: Int) {
        self.start = start
        self.style = style
    }
}

/// A rectangle in the layout's space (points, y down).
public struct Rect: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
}

/// Space between the layout box's edges and its text.
public struct EdgeInsets: Sendable, Equatable {
    public var top: Double, left: Double, bottom: Double, right: Double

    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
    }
}

/// What to do when the text needs more than `maxLines` lines.
public struct Truncation: Sendable {
    public enum Mode: String, Sendable, CaseIterable {
        /// Keep the start; the token ends the last line.
        case tail
        /// Keep the end; the token starts the first line.
        case head
        /// Keep the start and the end; the token sits between them on the last line.
        case middle
        /// Cut after the last line, no token.
        case clip
    }

    public var mode: Mode
    /// The token's text (UTF-16) and its style (an index into the request's styles).
    public var token: [UInt16]
    public var tokenStyle: Int

    public init(mode: Mode = .tail, token: [UInt16] = [0x2026], tokenStyle: Int = 0) {
        self.mode = mode
        self.token = token
        self.tokenStyle = tokenStyle
    }
}

/// What to lay out: UTF-16 text and its styles, the width of the layout box (nil: no
/// wrapping), the paragraph style, insets and exclusions, a line limit, the text's language
/// (BCP 47, "" when unknown) and how much detail to return.
public struct LayoutRequest: Sendable {
    public var text: [UInt16]
    public var width: Double?
    /// Styles the style runs refer to; `styles[0]` is the base style. Never empty.
    public var styles: [SpanStyle]
    public var styleRuns: [StyleRun]
    public var language: String
    public var paragraph: ParagraphStyle
    public var insets: EdgeInsets
    /// Areas (in the box's space) lines flow around.
    public var exclusions: [Rect]
    public var maxLines: Int?
    public var truncation: Truncation
    public var detail: LayoutDetail
    /// Whether runs and positions are needed (for regions or rects) even without run detail.
    public var keepsGeometry: Bool
    /// Whether the result should keep what a layout of the edited text can reuse.
    public var keepsReusable = false
    /// A previous layout whose unchanged paragraphs may be taken over (see `ReusableLayout`).
    public var previous: ReusableLayout?
    /// Asked between paragraphs and lines: an error to stop with (cancellation, a time
    /// limit), or nil to go on.
    public var shouldStop: (@Sendable () -> EngineError?)?

    /// The base font (`styles[0].font`).
    public var font: FontDescriptor {
        get { styles[0].font }
        set { styles[0].font = newValue }
    }

    public init(text: [UInt16], width: Double? = nil, font: FontDescriptor = FontDescriptor(),
                language: String = "", direction: ParagraphDirection = .auto, wrap: WrapMode = .word,
                detail: LayoutDetail = .lines) {
        self.text = text
        self.width = width
        self.styles = [SpanStyle(font: font)]
        self.styleRuns = [StyleRun(start: 0, style: 0)]
        self.language = language
        self.paragraph = ParagraphStyle()
        self.paragraph.direction = direction
        self.paragraph.wrap = wrap
        self.insets = EdgeInsets()
        self.exclusions = []
        self.maxLines = nil
        self.truncation = Truncation()
        self.detail = detail
        self.keepsGeometry = false
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

/// One paragraph's share of the geometry queries read, relative to its start: `positions[k]`,
/// the sum of the final advances of its units `0..<k` (length + 1 values), and each unit's
/// boundary bits (`TextLayout.graphemeBoundary` and the others). Shared, not copied, when a
/// later layout takes the paragraph over.
struct ParagraphGeometry: Sendable {
    var positions: [Double]
    var kinds: [UInt8]
}

/// The per-unit geometry of a layout, kept as its paragraphs' own tables (`ParagraphGeometry`,
/// shared with the layout that took them over) and each paragraph's sum of advances before
/// it: an update writes nothing per unit of the text. Empty without geometry.
struct TextGeometry: Sendable {
    /// The text's length in UTF-16 units.
    var length = 0
    /// Each paragraph's first offset, ascending.
    var starts: [Int] = []
    /// The sum of the advances of the paragraphs before each (a paragraph not laid out,
    /// after a truncation, adds nothing).
    var bases: [Double] = []
    var parts: [ParagraphGeometry?] = []

    var isEmpty: Bool { parts.isEmpty }

    /// The paragraph holding offset `i` (at a paragraph's end, the next one).
    @inline(__always)
    func paragraph(_ i: Int) -> Int { max(starts.partitionPoint { $0 <= i } - 1, 0) }
}

/// `positions[i]` of a `TextLayout`, read from its paragraphs: each paragraph's value is its
/// sum before it plus its own (the same addition a text-wide table was built with).
struct PositionTable: Sendable, Equatable {
    var geometry: TextGeometry
    var isEmpty: Bool { geometry.isEmpty }
    var count: Int { isEmpty ? 0 : geometry.length + 1 }

    subscript(i: Int) -> Double {
        let p = geometry.paragraph(i)
        guard let part = geometry.parts[p], !part.positions.isEmpty else { return geometry.bases[p] }
        return geometry.bases[p] + part.positions[min(i - geometry.starts[p], part.positions.count - 1)]
    }

    /// Every value compared (for tests).
    static func == (a: PositionTable, b: PositionTable) -> Bool {
        a.count == b.count && (0..<a.count).allSatisfy { a[$0] == b[$0] }
    }
}

/// `boundaryKinds[i]` of a `TextLayout`, read from its paragraphs: a paragraph's own bits,
/// and both boundary bits at the text's start and end and where a laid-out paragraph ends.
struct BoundaryTable: Sendable, Equatable {
    var geometry: TextGeometry
    var isEmpty: Bool { geometry.isEmpty }
    var count: Int { isEmpty ? 0 : geometry.length + 1 }

    subscript(i: Int) -> UInt8 {
        let both = TextLayout.graphemeBoundary | TextLayout.clusterBoundary
        if i == geometry.length { return both }
        let p = geometry.paragraph(i)
        let k = i - geometry.starts[p]
        var bits: UInt8 = 0
        if let part = geometry.parts[p], k < part.kinds.count { bits = part.kinds[k] }
        if k == 0, p == 0 || geometry.parts[p - 1] != nil { bits |= both }
        return bits
    }

    /// Every value compared (for tests).
    static func == (a: BoundaryTable, b: BoundaryTable) -> Bool {
        a.count == b.count && (0..<a.count).allSatisfy { a[$0] == b[$0] }
    }
}
