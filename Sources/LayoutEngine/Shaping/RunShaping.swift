extension RequestContext {
    /// Shapes the run `text[start..<end]` (one face, script, level and shaping style) and
    /// appends it to `runs`, its advances added to `advances`.
    mutating func shapeRun(_ text: UnsafeBufferPointer<UInt16>, _ start: Int, _ end: Int, _ key: RunKey,
                           _ runs: inout [ShapedRun], _ advances: inout [Double]) throws {
        let face = key.face.takeUnretainedValue()  // (one count per run, not per cluster)
        let styleIndex = key.styleIndex
        // Fields read in place: binding the style would copy it (and retain its strings).
        let size = request.styles[styleIndex].font.size
        let variations = face.effectiveVariations(request.styles[styleIndex].font)
        let instance = face.instance(variations: variations)
        let font = instance?.font ?? face.font
        let glyphs = try withExtendedLifetime(instance) { () throws -> [ShapedGlyph] in
            let cache = engine.shapeCache
            guard cache.capacity > 0 else {
                return shaping.shape(paragraph: text, start: start, end: end, face: face, font: font,
                                     features: features[styleIndex], script: key.script, level: key.level,
                                     language: language, size: size, advances: &advances)
            }
            let context = contextNumber(face: face, styleIndex: styleIndex, script: key.script, rtl: key.level & 1 == 1,
                                        variations: variations, cache: cache)
            return try shapeByWords(text, start, end, key, face: face, font: font, size: size, cache: cache,
                                    context: context, advances: &advances)
        }
        runs.append(ShapedRun(start: start, end: end, face: face, script: key.script, level: key.level,
                              styleIndex: styleIndex, glyphs: glyphs))
    }

    /// A run shaped word by word (a word: text up to and with the spaces after it, split only
    /// at a grapheme boundary), each looked up in the shape cache; words too long to cache are
    /// shaped in the paragraph's context. Left to right, glyphs go straight into the run; right
    /// to left, each word's glyphs (visual order within the word) are kept, then laid out last
    /// word first. Without `needsGlyphs`, only the advances are kept.
    private func shapeByWords(_ text: UnsafeBufferPointer<UInt16>, _ start: Int, _ end: Int, _ key: RunKey,
                              face: FontFace, font: OpaquePointer, size: Double, cache: ShapeCache, context: Int,
                              advances: inout [Double]) throws -> [ShapedGlyph] {
        let rtl = key.level & 1 == 1
        let styleIndex = key.styleIndex
        var all: [ShapedGlyph] = []
        if needsGlyphs { all.reserveCapacity(end - start) }
        var rtlWords: [Range<Int>] = []
        /// The key of the word `text[s..<e]` (nil when too long to cache).
        func keyOf(_ s: Int, _ e: Int) -> ShapeCache.WordKey? {
            e - s > ShapeCache.maxWordLength ? nil
                : cache.key(context: context, bot: s == 0, eot: e == text.count, text: UnsafeBufferPointer(rebasing: text[s..<e]))
        }
        // Each word's key is made a word ahead and its slot in the cache prefetched then
        // (`ShapeCache.prefetch`), so that it is on its way while this word is looked up.
        var w = start
        var e = wordEnd(text, w, end)
        var thisKey = keyOf(w, e)
        while w < end {
            let nextEnd = e < end ? wordEnd(text, e, end) : end
            let nextKey = e < end ? keyOf(e, nextEnd) : nil
            if let nextKey { cache.prefetch(nextKey) }
            let first = all.count
            var next = e
            if let wordKey = thisKey {
                let word = UnsafeBufferPointer(rebasing: text[w..<e])
                if !needsGlyphs, cache.addAdvances(wordKey, text: word, at: w, to: &advances) {
                    // Found: its advances added, its glyphs left in the cache.
                } else if needsGlyphs, cache.appendGlyphs(wordKey, text: word, to: &all) {
                    Self.place(&all, from: first, at: w, advances: &advances, rtl: rtl, rtlWords: &rtlWords)
                } else {
                    // A word to shape: the request's limits are asked here, where the work
                    // is (a paragraph of new words is one long run).
                    if let stop = request.shouldStop?() { throw stop }
                    // (What the run shapes with, bundled only here: kept across the loop, its
                    // references would be counted for every run.)
                    let run = RunWords(face: face, font: font, features: features[styleIndex], script: key.script,
                                       level: key.level, size: size, cache: cache, context: context)
                    next = shapeMissingWords(text, w, e, wordKey, runEnd: end, run, all: &all, advances: &advances,
                                             rtlWords: &rtlWords)
                }
            } else {
                if let stop = request.shouldStop?() { throw stop }
                all += shaping.shape(paragraph: text, start: w, end: e, face: face, font: font,
                                     features: features[styleIndex], script: key.script, level: key.level,
                                     language: language, size: size, advances: &advances)
                if rtl { rtlWords.append(first..<all.count) }
            }
            w = next
            if next == e {
                (e, thisKey) = (nextEnd, nextKey)
            } else if w < end {
                // (Words after this one were shaped with it: the next is further on.)
                e = wordEnd(text, w, end)
                thisKey = keyOf(w, e)
            }
        }
        // (Glyphs of words shaped here, without `needsGlyphs`, are not kept either.)
        if !needsGlyphs { return [] }
        return rtl && rtlWords.count > 1 ? Self.lastWordFirst(all, rtlWords) : all
    }

    /// A right-to-left run's glyphs in visual order: its words' glyphs, last word first.
    private static func lastWordFirst(_ all: [ShapedGlyph], _ words: [Range<Int>]) -> [ShapedGlyph] {
        var visual: [ShapedGlyph] = []
        visual.reserveCapacity(all.count)
        for word in words.reversed() { visual += all[word] }
        return visual
    }
}
