import CHarfBuzz

/// Per-request state reused across its paragraphs: font choice, a HarfBuzz buffer, the
/// request's styles and their shaping features, and the table of fonts the result refers to.
struct RequestContext {
    let engine: TextLayoutEngine
    let request: LayoutRequest
    let shaping = ShapingBuffer()
    let language: hb_language_t?
    let locale: String
    var selector: FontSelector
    /// The HarfBuzz features of each style.
    let features: [[hb_feature_t]]
    /// Each style's shaping identity: equal for styles that shape alike (same font, letter
    /// spacing and baseline offset), so runs split only where shaping must.
    let shapingID: [Int]
    /// Each style's family number in the selector, looked up on first use.
    var styleFamily: [Int?]
    /// The grapheme boundaries of the paragraph being shaped (words are cached only when they
    /// split at one).
    var currentGraphemes: [Int32] = []
    /// The code units this request has seen take each fallback face, for the fast path
    /// in `shapeClusters`.
    var faceBits: FaceBits
    /// Whether each style is an inline object's (read per cluster; the style is not copied).
    let isAttachmentStyle: [Bool]
    /// Shape cache context numbers this request looked up, past the eight last used (a
    /// table made only when a request has more than eight contexts).
    var contextMemo: [ContextMemoKey: Int] = [:]
    /// The eight context numbers last used, compared before hashing; and the slot the next
    /// one replaces (moving the one there to `contextMemo`) once there are eight.
    var recentContexts: [(key: ContextMemoKey, number: Int)] = []
    var nextRecentContext = 0
    /// Whether anything reads the shaped runs' glyphs: glyph or run detail, or geometry kept
    /// for queries. Without, a word found in the shape cache only adds its advances
    /// (`ShapeCache.addAdvances`) and runs keep no glyphs, nor does the shaping a layout keeps
    /// for reuse: a later layout that reads glyphs fetches them again (`addingGlyphs`).
    let needsGlyphs: Bool
    /// Fonts the result's runs refer to, by index.
    var fonts: [UsedFont] = []
    var fontIndex: [UsedFont: Int] = [:]
    /// Each face and style's number in `fonts`, as `fontNumber(_:styleIndex:)` found it:
    /// looked up by two integers rather than by hashing the font's names for every run of
    /// every line. (The face is held with its number, so that its identifier stays its own.)
    var faceStyleNumbers: [FaceStyle: (face: FontFace, number: Int)] = [:]
    /// The last of them looked up.
    var lastFaceStyle: (key: FaceStyle, number: Int)?

    struct FaceStyle: Hashable {
        var face: ObjectIdentifier
        var style: Int
    }

    init(engine: TextLayoutEngine, request: consuming LayoutRequest) {
        // (Every stored property is set once, in straight-line code from values found first:
        // set in branches, the whole context is built aside and copied into place. The
        // request is stored last, taken rather than copied where the caller hands it over.)
        let language = request.language
        var selector: FontSelector?
        var faceBits = FaceBits()
        request.fontCarry?.take(fonts: engine.fonts, language: language, selector: &selector, faceBits: &faceBits)
        self.engine = engine
        self.language = harfBuzzLanguage(language)
        self.locale = icuLocale(language)
        self.selector = selector.take() ?? FontSelector(fonts: engine.fonts, language: language)
        self.faceBits = faceBits
        self.features = request.styles.map(harfBuzzFeatures)
        self.styleFamily = [Int?](filledWith: nil, count: request.styles.count)
        self.isAttachmentStyle = request.styles.map { $0.attachment != nil }
        self.needsGlyphs = request.detail >= .runs || request.keepsGeometry
        self.shapingID = Self.shapingIdentities(request.styles)
        self.request = request
    }

    /// Each style's shaping identity (see `shapingID`).
    private static func shapingIdentities(_ styles: [SpanStyle]) -> [Int] {
        guard styles.count > 1 else { return [0] }   // (most requests: no table to hash the one style into)
        var ids: [SpanStyle: Int] = [:]
        return styles.map { style in
            if let known = ids[style] { return known }
            ids[style] = ids.count
            return ids.count - 1
        }
    }

    /// The index of `face` at the request's style `styleIndex` (its size and axes) in the
    /// result's font table, adding it on first use.
    mutating func fontNumber(_ face: FontFace, styleIndex: Int) -> Int {
        let key = FaceStyle(face: ObjectIdentifier(face), style: styleIndex)
        // A line's runs mostly repeat the font of the run before: asked first, without hashing.
        if let last = lastFaceStyle, last.key == key { return last.number }
        if let known = faceStyleNumbers[key] {
            lastFaceStyle = (key, known.number)
            return known.number
        }
        let style = request.styles[styleIndex]
        let number = fontNumber(UsedFont(identity: face.identity, family: face.familyName, size: style.font.size,
                                         variations: face.effectiveVariations(style.font)))
        faceStyleNumbers[key] = (face, number)
        lastFaceStyle = (key, number)
        return number
    }

    /// The index of `used` in the result's font table, adding it on first use.
    mutating func fontNumber(_ used: UsedFont) -> Int {
        if let known = fontIndex[used] { return known }
        fonts.append(used)
        fontIndex[used] = fonts.count - 1
        return fonts.count - 1
    }

    /// The style index at UTF-16 offset `offset` of the text (binary search in the runs).
    func styleIndex(at offset: Int) -> Int { request.styleIndex(at: offset) }

    /// The hyphen a soft hyphen shows at a line's end: U+2010 HYPHEN, else U+002D, in `face`.
    func hyphen(in face: FontFace?, size: Double) -> (glyph: UInt32, advance: Double)? {
        guard let face, let scalar = hyphenScalar(in: face, size: size) else { return nil }
        return face.advance(of: UInt32(scalar), size: size)
    }

    /// Which hyphen `face` shows: U+2010 HYPHEN when it has one, else U+002D; nil with neither.
    func hyphenScalar(in face: FontFace, size: Double) -> UInt16? {
        if face.advance(of: 0x2010, size: size) != nil { return 0x2010 }
        return face.advance(of: 0x2D, size: size) != nil ? 0x2D : nil
    }
}
