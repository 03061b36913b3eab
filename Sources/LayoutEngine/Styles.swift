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

/// How lines are broken among a paragraph's break opportunities.
public enum WrapStyle: String, Sendable, CaseIterable {
    /// Each line takes as much as fits.
    case greedy
    /// As many lines as greedy filling makes, each as narrow as that allows (CSS Text 4
    /// `text-wrap: balance`): the widest line is as narrow as it can be.
    case balance
    /// The paragraph's best breaking as a whole (Knuth and Plass's total fit: least squared
    /// slack, few hyphens, no very short last line), as Minikin's high-quality strategy.
    case optimal
    /// Greedy, its last four lines broken again for the best fit when the last line is
    /// short (CSS Text 4 `text-wrap: pretty`, as Chromium does it).
    case pretty
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
    /// How a paragraph's break opportunities are chosen among.
    public var wrapStyle: WrapStyle = .greedy
    /// Where words may be hyphenated (CSS Text 3 `hyphens`).
    public var hyphenation: Hyphenation = .manual
    /// The shortest word `auto` hyphenates and the fewest characters it leaves on each side
    /// of the break (CSS Text 4 `hyphenate-limit-chars`).
    public var hyphenationMinimum = HyphenationMinimum()

    public init() {}
}

/// CSS Text 3 `hyphens`: `none` breaks no word, not even at a soft hyphen; `manual` only at
/// soft hyphens (U+00AD); `auto` also where the language's hyphenation dictionary allows.
public enum Hyphenation: String, Sendable {
    case none, manual, auto
}

/// CSS Text 4 `hyphenate-limit-chars`, in characters: at least `before` before a break and
/// `after` after it, in a word of at least `word`.
public struct HyphenationMinimum: Sendable, Equatable {
    public var before = 2
    public var after = 2
    public var word = 5

    public init(before: Int = 2, after: Int = 2, word: Int = 5) {
        self.before = before
        self.after = after
        self.word = word
    }
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
/// boundaries (`AttributedText.snapped` moves span edges outward to them).
public struct StyleRun: Sendable, Equatable {
    public var start: Int
    public var style: Int

    public init(start: Int, style: Int) {
        self.start = start
        self.style = style
    }
}
