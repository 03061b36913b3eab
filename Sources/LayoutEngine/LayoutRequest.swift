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
    /// Whether the result carries its font table (`TextLayout.fonts`); a caller that reads
    /// only sizes and line counts (`measure`) says no, and the table is not settled.
    public var wantsFontTable = true
    /// Whether the result should keep what a layout of the edited text can reuse.
    public var keepsReusable = false
    /// Whether the text is followed by more of its document (a retained document's piece
    /// laid out by itself): a paragraph separator at its end closes its last paragraph and
    /// opens no empty one after it, as it would not in the whole text.
    public var textContinues = false
    /// Whether the result keeps each paragraph's shaping for another layout of the same text
    /// (at other widths) without its lines (see `TextLayoutEngine.layouts(_:widths:)`).
    var keepsShapingOnly = false
    /// Whether the result keeps each paragraph's shaping (`KeptShaping`).
    var keepsShaping: Bool { keepsReusable || keepsShapingOnly }
    /// A previous layout whose unchanged paragraphs may be taken over (see `ReusableLayout`).
    public var previous: ReusableLayout?
    /// Asked between paragraphs and lines: an error to stop with (cancellation, a time
    /// limit), or nil to go on.
    public var shouldStop: (@Sendable () -> EngineError?)?
    /// The text's grapheme cluster boundaries (UAX #29), 0 and the end included, when the
    /// caller found them already (`AttributedText` does, to snap spans): each paragraph takes
    /// its share instead of finding them again. Nil: found per paragraph.
    public var graphemes: [Int32]?
    /// UTF-16 ranges of the text that automatic hyphenation leaves whole (links, mentions,
    /// attachments: text a reader copies or taps as it is), ascending.
    public var unhyphenated: [Range<Int>] = []
    /// UTF-16 ranges whose words automatic hyphenation looks up in another language's
    /// dictionary than `language` (spans with a language of their own), ascending and apart.
    public var hyphenationLanguages: [LanguageRange] = []
    /// Font lookups carried over from the layout made before this one (see
    /// `FontSelectionCarry`), and handed on to the next.
    public var fontCarry: FontSelectionCarry?

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

/// A range of a text (UTF-16) and the BCP 47 language of its words.
public struct LanguageRange: Sendable, Equatable {
    public var range: Range<Int>
    public var language: String

    public init(range: Range<Int>, language: String) {
        self.range = range
        self.language = language
    }
}
