/// Lays out text: splits paragraphs, resolves bidi levels, scripts, styles and a font per
/// grapheme cluster (with fontconfig fallback), shapes runs with HarfBuzz, finds line-break
/// opportunities with ICU, fills each line's slot greedily (indents, insets, exclusions),
/// applies tabs, justification and line height, orders each line's runs visually, and
/// truncates to `maxLines`. Thread-safe; share one per daemon.
public final class TextLayoutEngine: Sendable {
    public let fonts: FontSystem
    public let breakIterators: BreakIteratorPool
    /// Longest text accepted, in UTF-16 units.
    public let maxTextLength: Int
    /// Shaped words kept across requests.
    public let shapeCache: ShapeCache
    /// The hyphenation dictionaries `hyphenation: auto` reads, and the words looked up.
    public let hyphenator: Hyphenator
    /// Sizes of plain paragraphs measured lately (`measurePlainParagraph`).
    public let measuredParagraphs: MeasuredParagraphs

    /// `shapeCacheEntries`: words kept shaped (0: none); `measureCacheEntries`: sizes of
    /// plain paragraphs kept (0: none).
    public convenience init(fonts: FontSystem, maxTextLength: Int = 16 << 20, shapeCacheEntries: Int = 20_000,
                            measureCacheEntries: Int = 4096, hyphenator: Hyphenator = Hyphenator()) {
        self.init(fonts: fonts, maxTextLength: maxTextLength, shapeCache: ShapeCache(capacity: shapeCacheEntries),
                  measureCacheEntries: measureCacheEntries, hyphenator: hyphenator)
    }

    /// Whether line-break opportunities are found on demand near each line's end where a
    /// paragraph allows (`LineBreaks.onDemand`), else all ahead of time; off only in tests,
    /// to compare the two.
    let findsBreaksOnDemand: Bool

    /// Whether a paragraph of one bidi level throughout (plain left to right, or purely right
    /// to left: most short messages) takes that level without ICU (`BidiParagraph`); off
    /// only in tests, to compare the two.
    let resolvesOneLevelTextWithoutICU: Bool

    /// With a shape cache of the caller's (tests: one that shapes each missing word alone),
    /// break opportunities found on demand or not, and text of one bidi level resolved
    /// without ICU or not (tests: to compare).
    init(fonts: FontSystem, maxTextLength: Int = 16 << 20, shapeCache: ShapeCache, findingBreaksOnDemand: Bool = true,
         resolvingOneLevelTextWithoutICU: Bool = true, measureCacheEntries: Int = 4096, hyphenator: Hyphenator = Hyphenator()) {
        self.fonts = fonts
        self.measuredParagraphs = MeasuredParagraphs(capacity: measureCacheEntries)
        self.breakIterators = BreakIteratorPool()
        self.maxTextLength = maxTextLength
        self.shapeCache = shapeCache
        self.hyphenator = hyphenator
        self.findsBreaksOnDemand = findingBreaksOnDemand
        self.resolvesOneLevelTextWithoutICU = resolvingOneLevelTextWithoutICU
    }

    /// Lays out `request`. Fails with `EngineError.textTooLong` past `maxTextLength`,
    /// `noFontsAvailable` when fontconfig has no font at all, or `icuFailed`.
    /// With `deferredRelease`, the layout's working data (shaped paragraphs, the request's caches)
    /// is left there, within its bound, for the caller to free later; without, it is freed
    /// as the layout goes.
    public func layout(_ request: LayoutRequest, deferredRelease: DeferredRelease? = nil) throws -> TextLayout {
        guard request.text.count <= maxTextLength else {
            throw EngineError.textTooLong(length: request.text.count, limit: maxTextLength)
        }
        // (Anything left in `deferredRelease` points into the text: left only when it holds the text.)
        let leaving = deferredRelease?.hold(request.text) == true ? deferredRelease : nil
        return try request.text.withUnsafeBufferPointer { text in
            var pass = LayoutPass(engine: self, request: request, text: text)
            pass.deferredRelease = leaving
            defer { leaving?.keep(pass.context, textLength: text.count) }
            // (Declared after, so run before: the context deferred keeps no carried tables.)
            defer { request.fontCarry?.keep(from: &pass.context) }
            return try pass.layout()
        }
    }

    /// `request` laid out at each of `widths` (nil: no wrapping), in that order, each
    /// paragraph analysed and shaped once for all of them; otherwise as `layout`. The layouts
    /// keep nothing for reuse.
    public func layouts(_ request: LayoutRequest, widths: [Double?],
                        deferredRelease: DeferredRelease? = nil) throws -> [TextLayout] {
        guard request.text.count <= maxTextLength else {
            throw EngineError.textTooLong(length: request.text.count, limit: maxTextLength)
        }
        let leaving = deferredRelease?.hold(request.text) == true ? deferredRelease : nil
        var shared = request
        shared.keepsReusable = false
        shared.keepsShapingOnly = widths.count > 1
        shared.previous = nil
        return try shared.text.withUnsafeBufferPointer { text in
            var results: [TextLayout] = []
            results.reserveCapacity(widths.count)
            var context: RequestContext?
            var previous: ReusableLayout?
            for width in widths {
                if let stop = request.shouldStop?() { throw stop }
                var one = shared
                one.width = width
                one.previous = previous
                var pass = LayoutPass(engine: self, request: one, text: text, context: context)
                pass.deferredRelease = leaving
                var layout = try pass.layout()
                previous = layout.reusable
                layout.reusable = nil
                results.append(layout)
                context = pass.context
            }
            if let context { leaving?.keep(context, textLength: text.count) }
            return results
        }
    }

    /// Every boundary of `kind` in `text`, 0 and the end included (UTF-16 offsets).
    public func boundaries(_ kind: BoundaryKind, of text: [UInt16], language: String = "") throws -> [Int] {
        guard text.count <= maxTextLength else {
            throw EngineError.textTooLong(length: text.count, limit: maxTextLength)
        }
        return try text.withUnsafeBufferPointer {
            // Grapheme boundaries as layout finds them (the same as ICU's; tests compare).
            if kind == .grapheme { return GraphemeBreaks.boundaries($0).map(Int.init) }
            return try breakIterators.boundaries(kind, of: $0, locale: icuLocale(language)).offsets.map(Int.init)
        }
    }
}
