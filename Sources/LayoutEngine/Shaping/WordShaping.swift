import CHarfBuzz

extension RequestContext {
    /// Where the word of `text` starting at `w` ends (at most at `end`): after the spaces
    /// that follow it.
    @inline(__always) func wordEnd(_ text: UnsafeBufferPointer<UInt16>, _ w: Int, _ end: Int) -> Int {
        var e = w
        while e < end, text[e] != 0x20 { e += 1 }
        while e < end, text[e] == 0x20 { e += 1 }
        // A mark on a space: keep it whole. (After a space only an extending or spacing mark
        // or a joiner continues a cluster, none of them below U+0300.)
        while e < end, text[e] >= 0x300, !isGraphemeBoundary(e) {
            e += 1
            while e < end, text[e] != 0x20 { e += 1 }
            while e < end, text[e] == 0x20 { e += 1 }
        }
        return e
    }

    /// The glyphs of the word at `w` — `all[first...]`, clusters relative to `w` — moved to
    /// the paragraph's offsets and their advances added, through pointers; right to left,
    /// the word noted in `rtlWords`.
    @inline(__always) static func place(_ all: inout [ShapedGlyph], from first: Int, at w: Int, advances: inout [Double],
                                                rtl: Bool, rtlWords: inout [Range<Int>]) {
        let offset = Int32(w)
        all.withUnsafeMutableBufferPointer { glyphs in
            advances.withUnsafeMutableBufferPointer { advances in
                for g in first..<glyphs.count {
                    glyphs[g].cluster &+= offset
                    let cluster = Int(glyphs[g].cluster)
                    if cluster < advances.count { advances[cluster] += Double(glyphs[g].advance) }
                }
            }
        }
        if rtl { rtlWords.append(first..<all.count) }
    }

    /// What the words of a run shape with (`shapeRun`).
    struct RunWords {
        let face: FontFace
        let font: OpaquePointer
        let features: [hb_feature_t]
        let script: Script
        let level: UInt8
        let size: Double
        let cache: ShapeCache
        let context: Int
        var rtl: Bool { level & 1 == 1 }
    }

    /// `text[s..<e]` shaped on its own, as a cached word is (clusters relative to `s`).
    func shapeAlone(_ text: UnsafeBufferPointer<UInt16>, _ s: Int, _ e: Int, _ run: RunWords,
                            markingSafeBreaks: Bool = false) -> [ShapedGlyph] {
        let piece = UnsafeBufferPointer(rebasing: text[s..<e])
        var scratch = [Double](filledWith: 0, count: piece.count)
        return shaping.shape(paragraph: piece, start: 0, end: piece.count, face: run.face, font: run.font,
                             features: run.features, script: run.script, level: run.level, language: language,
                             size: run.size, bot: s == 0, eot: e == text.count, markingSafeBreaks: markingSafeBreaks,
                             advances: &scratch)
    }

    /// After a miss for the word `text[w..<e]` (whose key is `wordKey`): shapes it and keeps
    /// it, with the missing words after it in the run (up to `runEnd`) — in one call, then
    /// cut apart where HarfBuzz says the cut changes nothing (HB_GLYPH_FLAG_UNSAFE_TO_BREAK,
    /// see hb_buffer_get_glyph_infos) and kept one by one, each exactly as shaping it alone
    /// would give it (a word whose edge is not safe to cut is shaped alone). One call for
    /// many words, because every call repeats the font's per-call set-up (its lookups are
    /// run over each buffer). Appends their glyphs to `all`, placed as
    /// `place` places them, and returns where the words shaped end. (Out of line: the loop
    /// over found words stays small.)
    @inline(never)
    func shapeMissingWords(_ text: UnsafeBufferPointer<UInt16>, _ w: Int, _ e: Int, _ wordKey: ShapeCache.WordKey,
                           runEnd end: Int, _ run: RunWords, all: inout [ShapedGlyph], advances: inout [Double],
                           rtlWords: inout [Range<Int>]) -> Int {
        let cache = run.cache, rtl = run.rtl
        var missing = [(start: w, end: e, key: wordKey)]
        var next = e
        while cache.shapesMissingWordsTogether, next < end, missing.count < Self.maxWordsShapedTogether {
            let nextEnd = wordEnd(text, next, end)
            guard nextEnd - next <= ShapeCache.maxWordLength else { break }
            let nextWord = UnsafeBufferPointer(rebasing: text[next..<nextEnd])
            let nextKey = cache.key(context: run.context, bot: false, eot: nextEnd == text.count, text: nextWord)
            if cache.contains(nextKey, text: nextWord) { break }
            missing.append((next, nextEnd, nextKey))
            next = nextEnd
        }
        if missing.count == 1 {
            let first = all.count
            let made = shapeAlone(text, w, e, run)
            cache.keep(wordKey, text: UnsafeBufferPointer(rebasing: text[w..<e]), glyphs: made[...], countingMiss: false)
            all += made
            Self.place(&all, from: first, at: w, advances: &advances, rtl: rtl, rtlWords: &rtlWords)
            return e
        }
        let together = shapeAlone(text, w, next, run, markingSafeBreaks: true)
        cache.countShapedTogether(missing.count)
        // Each word's glyphs are one stretch of `together`: clusters run up in visual order
        // left to right, down right to left (the first word's glyphs last).
        var cursor = rtl ? together.count : 0
        for (k, m) in missing.enumerated() {
            let localEnd = Int32(m.end - w)
            let glyphs: Range<Int>
            if rtl {
                var a = cursor
                while a > 0, together[a - 1].cluster < localEnd { a -= 1 }
                glyphs = a..<cursor
                cursor = a
            } else {
                var b = cursor
                while b < together.count, together[b].cluster < localEnd { b += 1 }
                glyphs = cursor..<b
                cursor = b
            }
            let first = all.count
            let word = UnsafeBufferPointer(rebasing: text[m.start..<m.end])
            if (k == 0 || shaping.safeToBreak[m.start - w]) && (k == missing.count - 1 || shaping.safeToBreak[m.end - w]) {
                all += together[glyphs]
                let shift = Int32(m.start - w)
                all.withUnsafeMutableBufferPointer { all in
                    for g in first..<all.count { all[g].cluster &-= shift }
                }
                cache.keep(m.key, text: word, glyphs: all[first...], countingMiss: k > 0)
            } else {
                let made = shapeAlone(text, m.start, m.end, run)
                cache.keep(m.key, text: word, glyphs: made[...], countingMiss: k > 0)
                all += made
            }
            Self.place(&all, from: first, at: m.start, advances: &advances, rtl: rtl, rtlWords: &rtlWords)
        }
        return next
    }

    /// Most missing words of a run shaped together in one call (`shapeRun`).
    static let maxWordsShapedTogether = 64

    func isGraphemeBoundary(_ offset: Int) -> Bool {
        let i = currentGraphemes.partitionPoint { Int($0) < offset }
        return i < currentGraphemes.count && Int(currentGraphemes[i]) == offset
    }
}
