/// Where `hyphenation: auto` may break the word a line's end falls before or inside (CSS
/// Text 3 §5.4, `hyphens: auto`): the word is the text between white space, less opening
/// punctuation before it and closing punctuation after it; only a word of letters (no digits,
/// `.`, `/`, `@`, `:`: no URL, address, mention or code) at least `minimum.word` characters
/// long, outside the ranges left whole, is looked up in the language's dictionary.
struct WordHyphenation {
    let hyphenator: Hyphenator
    /// The request's language: the dictionary of words outside `languages`.
    let language: String
    /// Paragraph-relative ranges whose words take another language's dictionary (spans
    /// with a language of their own), ascending and apart.
    let languages: [LanguageRange]
    let minimum: HyphenationMinimum
    /// Paragraph-relative ranges left whole, ascending and apart.
    let unhyphenated: [Range<Int>]

    /// The longest stretch between white space looked at, in UTF-16 units: the dictionaries'
    /// longest word (64 characters) with punctuation around it. Longer ones are not words,
    /// and looking at them stays bounded per line.
    static let longestToken = 160

    /// `request`'s hyphenation for the paragraph at `start` (UTF-16, in the request's text),
    /// nil unless it asks for `auto` and a dictionary serves its language or a span's in
    /// the paragraph.
    init?(_ request: LayoutRequest, hyphenator: Hyphenator, paragraphStart start: Int, length: Int) {
        guard request.paragraph.hyphenation == .auto, request.paragraph.wrap == .word else { return nil }
        let end = start + length
        let firstLanguage = request.hyphenationLanguages.partitionPoint { $0.range.upperBound <= start }
        languages = request.hyphenationLanguages[firstLanguage...].prefix { $0.range.lowerBound < end }.map {
            LanguageRange(range: max(0, $0.range.lowerBound - start)..<min(length, $0.range.upperBound - start), language: $0.language)
        }
        let served = { (language: String) in !language.isEmpty && hyphenator.dictionary(for: language) != nil }
        guard served(request.language) || languages.contains(where: { served($0.language) }) else { return nil }
        self.hyphenator = hyphenator
        self.language = request.language
        self.minimum = request.paragraph.hyphenationMinimum
        let first = request.unhyphenated.partitionPoint { $0.upperBound <= start }
        unhyphenated = request.unhyphenated[first...].prefix { $0.lowerBound < end }
            .map { max(0, $0.lowerBound - start)..<min(length, $0.upperBound - start) }
    }

    /// The language of the word starting at `offset` (paragraph-relative): its span's, else
    /// the request's.
    func language(at offset: Int) -> String {
        let i = languages.partitionPoint { $0.range.upperBound <= offset }
        return i < languages.count && languages[i].range.contains(offset) ? languages[i].language : language
    }

    /// The break points (paragraph-relative, ascending, after `lineStart`) of the word that
    /// starts at `end` — a line's end after white space — or of the word `end` falls inside
    /// (a word wider than the line, broken between clusters). Empty when there is none.
    func points(in text: UnsafeBufferPointer<UInt16>, lineStart: Int, end: Int) -> [Int] {
        // A mandatory break ends its line whatever follows (UAX #14 BK).
        guard end < text.count, end == 0 || !isHardBreak(text[end - 1]) else { return [] }
        // The word's start: after white space, wherever the line starts (a line may start
        // inside a word after a hyphen, or inside a URL after a `/`).
        var start = end
        let floor = max(0, end - Self.longestToken)
        while start > floor, !isWordSeparator(text[start - 1]) { start -= 1 }
        guard start == 0 || isWordSeparator(text[start - 1]) else { return [] }
        var tokenEnd = start
        while tokenEnd < text.count, !isWordSeparator(text[tokenEnd]) {
            tokenEnd += 1
            if tokenEnd - start > Self.longestToken { return [] }
        }
        var lower = start, upper = tokenEnd
        while lower < upper, isOpeningPunctuation(text[lower]) { lower += 1 }
        while upper > lower, isClosingPunctuation(text[upper - 1]) { upper -= 1 }
        let language = language(at: lower)
        guard !language.isEmpty, upper - lower >= minimum.word, characters(text, lower..<upper) >= minimum.word,
              !isLeftWhole(lower..<upper),
              let points = hyphenator.breakPoints(in: Array(text[lower..<upper]), language: language,
                                                  before: minimum.before, after: minimum.after)
        else { return [] }
        var after: [Int] = []
        for point in points where lower + point > lineStart { after.append(lower + point) }
        return after
    }

    /// How many characters (code points) `range` of `text` holds: its units less the second
    /// halves of surrogate pairs.
    private func characters(_ text: UnsafeBufferPointer<UInt16>, _ range: Range<Int>) -> Int {
        var count = 0
        for i in range where text[i] & 0xFC00 != 0xDC00 { count += 1 }
        return count
    }

    private func isLeftWhole(_ word: Range<Int>) -> Bool {
        let i = unhyphenated.partitionPoint { $0.upperBound <= word.lowerBound }
        return i < unhyphenated.count && unhyphenated[i].lowerBound < word.upperBound
    }
}

/// White space or a paragraph's or line's separator: what words lie between.
private func isWordSeparator(_ u: UInt16) -> Bool {
    isHangingSpace(u) || u == 0x0A || u == 0x0D || u == 0x85 || u == 0x2029 || u == 0xA0 || u == 0x202F
}

/// Punctuation that may open a word: brackets, quotation marks, inverted ! and ?.
private func isOpeningPunctuation(_ u: UInt16) -> Bool {
    switch u {
    case 0x28, 0x5B, 0x7B, 0x22, 0x27, 0xAB, 0xA1, 0xBF, 0x2018, 0x201A, 0x201C, 0x201E, 0x2039: true
    default: false
    }
}

/// Punctuation that may close a word: brackets, quotation marks, stops, commas, colons.
private func isClosingPunctuation(_ u: UInt16) -> Bool {
    switch u {
    case 0x29, 0x5D, 0x7D, 0x22, 0x27, 0x2E, 0x2C, 0x3B, 0x3A, 0x21, 0x3F, 0xBB, 0x2019, 0x201D, 0x203A, 0x2026: true
    default: false
    }
}
