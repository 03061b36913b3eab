/// Chooses a face for each grapheme cluster of one request, per style: the style's family
/// first, then fontconfig's fallback order for the cluster's script and language. Keeps
/// what it has looked up (fallback lists per family and script, faces per code point) for
/// the request's lifetime.
struct FontSelector {
    let fonts: FontSystem
    let language: String
    private var families: [Family] = []
    /// The first family's key (number 0), and every later family's number by key: most
    /// requests have one family, looked up without a table.
    private var firstFamilyKey: FontDescriptor.SelectionKey?
    private var familyIndex: [FontDescriptor.SelectionKey: Int] = [:]
    /// The last family asked for (consecutive clusters nearly always share one).
    private var lastFamily: (key: FontDescriptor.SelectionKey, index: Int)?
    /// The face of the cluster before, in the current paragraph (see `keepsPreviousFont`).
    /// Unretained, as what `face` returns: the selector holds every face it hands out.
    var previousFace: Unmanaged<FontFace>?

    /// One family's lookups.
    struct Family {
        let list: FallbackList
        let primary: FontFace?
        /// `primary`, unretained (held by `primary`), for `face` to hand out without touching
        /// its reference count.
        let primaryUnretained: Unmanaged<FontFace>?
        var byScript: [Int32: FallbackList] = [:]
        /// Faces chosen per code point and short cluster, shared with every request of this
        /// family and language.
        let shared: ScalarFaces
        /// Whether the primary face covers each code point below U+2400, as bits (the
        /// list's, shared by every request; saves asking fontconfig per cluster).
        let primaryCoverage: [UInt64]
        /// The request's own small cache in front of `shared` (no lock).
        var recent = RecentFaces()
    }

    init(fonts: FontSystem, language: String) {
        self.fonts = fonts
        self.language = language
    }

    /// The face a style's text starts from: its family's best match (the face with a space).
    mutating func primaryFace(_ font: FontDescriptor) throws -> FontFace? {
        families[try familyNumber(font)].primary
    }

    /// The number of a style font's family lookups (the same for equal families); pass it
    /// to `face` for every cluster of that style.
    mutating func familyNumber(_ font: FontDescriptor) throws -> Int {
        let key = font.selectionKey
        if let last = lastFamily, last.key == key { return last.index }
        let index: Int
        if let first = firstFamilyKey, first == key {
            index = 0
        } else if let known = familyIndex[key] {
            index = known
        } else {
            let start = try fonts.familyStart(for: font, key: key, language: language)
            families.append(Family(list: start.list, primary: start.primary,
                                   primaryUnretained: start.primary.map(Unmanaged.passUnretained),
                                   shared: start.shared, primaryCoverage: start.primaryCoverage))
            index = families.count - 1
            if index == 0 { firstFamilyKey = key } else { familyIndex[key] = index }
        }
        lastFamily = (key, index)
        return index
    }

    /// The face for the cluster `start..<end` of `text` (script `script`, style font `font`).
    /// A space, a control or format character, or a variation selector never picks a font:
    /// it stays in the font of the text before it, as in Pango (every font has the ASCII
    /// space, and HarfBuzz falls back to it for the others), unless that font is a colour
    /// (emoji) font, whose space is an emoji wide: then it is chosen like any other text.
    ///
    /// Unretained: the selector holds every face it returns (in its families' primary faces,
    /// fallback lists and `recent` caches) for as long as it lives, so callers keep one
    /// without a reference count written per cluster — counts that two threads laying out
    /// at once would write to the same shared faces.
    mutating func face(_ text: UnsafeBufferPointer<UInt16>, _ start: Int, _ end: Int, script: Script,
                       family f: Int, font: @autoclosure () -> FontDescriptor) throws -> Unmanaged<FontFace> {
        let (first, width) = decodeUTF16(text, at: start)
        if keepsPreviousFont(first), let previousFace,
           !previousFace._withUnsafeGuaranteedRef({ $0.hasColorGlyphs }) { return previousFace }
        let chosen: Unmanaged<FontFace>
        let scriptKey = UInt64(UInt32(bitPattern: script.code))
        if start + width == end {
            // Below U+231A no character defaults to emoji presentation.
            if first < 0x231A, let primary = families[f].primaryUnretained, primaryCovers(f, first) {
                chosen = primary
            } else if let known = families[f].recent.face(UInt64(first), scriptKey) {
                chosen = known
            } else if let known = families[f].shared.face(UInt64(first), scriptKey) {
                families[f].recent.set(known, UInt64(first), scriptKey, textLength: text.count)
                chosen = Unmanaged.passUnretained(known)  // (held by `recent` now)
            } else {
                let face = try Self.choose(CollectionOfOne(first), script: script, font: font(), fonts: fonts, language: language,
                                           family: &families[f])
                families[f].shared.set(face, UInt64(first), scriptKey)
                families[f].recent.set(face, UInt64(first), scriptKey, textLength: text.count)
                chosen = Unmanaged.passUnretained(face)  // (held by the fallback list it came from)
            }
        } else if let primary = families[f].primaryUnretained, primaryCoversCluster(f, text, start, end) {
            // Every code point below U+2000 (so no emoji presentation) and in the primary face.
            chosen = primary
        } else if end - start <= 4 {
            // A short cluster (a letter with a mark or two, an emoji with a selector): its
            // units, length and script are the key of the request's cache and the shared one.
            var units: UInt64 = 0
            for i in start..<end { units = units << 16 | UInt64(text[i]) }
            let tag = scriptKey | UInt64(end - start) << 32
            if let known = families[f].recent.face(units, tag) {
                chosen = known
            } else if let known = families[f].shared.face(units, tag) {
                families[f].recent.set(known, units, tag, textLength: text.count)
                chosen = Unmanaged.passUnretained(known)
            } else {
                let face = try Self.choose(Self.clusterScalars(text, start, end), script: script, font: font(), fonts: fonts,
                                           language: language, family: &families[f])
                families[f].shared.set(face, units, tag)
                families[f].recent.set(face, units, tag, textLength: text.count)
                chosen = Unmanaged.passUnretained(face)
            }
        } else {
            let face = try Self.choose(Self.clusterScalars(text, start, end), script: script, font: font(), fonts: fonts,
                                       language: language, family: &families[f])
            chosen = Unmanaged.passUnretained(face)  // (held by the fallback list it came from)
        }
        previousFace = chosen
        return chosen
    }

    /// The code points of the cluster `start..<end` that decide its font: the first
    /// `maxShapedClusterLength` (enough for any real cluster, and bounded for hostile ones).
    private static func clusterScalars(_ text: UnsafeBufferPointer<UInt16>, _ start: Int, _ end: Int) -> [UInt32] {
        var scalars: [UInt32] = []
        var i = start
        while i < end, scalars.count < maxShapedClusterLength {
            let (s, w) = decodeUTF16(text, at: i)
            scalars.append(s)
            i += w
        }
        return scalars
    }

    /// Whether a cluster of several code points takes the primary face without asking the
    /// fallback lists: all below U+2000 (nothing there asks for emoji presentation) and each
    /// ignorable or covered by the primary face — what `choose` decides first, without
    /// allocating. Bounded like `choose`: false past `maxShapedClusterLength` code points.
    private func primaryCoversCluster(_ f: Int, _ text: UnsafeBufferPointer<UInt16>, _ start: Int, _ end: Int) -> Bool {
        var i = start, count = 0
        while i < end {
            let (scalar, width) = decodeUTF16(text, at: i)
            guard scalar < 0x2000, count < maxShapedClusterLength else { return false }
            if !isIgnorableForCoverage(scalar), !primaryCovers(f, scalar) { return false }
            i += width
            count += 1
        }
        return true
    }

    /// When `face` is family `f`'s primary face: its coverage bits below U+2400 (see
    /// `Family.primaryCoverage`), else nil. A code unit below U+231A (neither emoji
    /// presentation nor a surrogate) whose bit is set, as a cluster of its own after a
    /// cluster in `face`, gets `face` from `face(…)`: it either keeps the face before it or
    /// is covered by the primary face, and both are `face`.
    func primaryCoverage(of face: Unmanaged<FontFace>, family f: Int) -> [UInt64]? {
        families[f].primaryUnretained?.toOpaque() == face.toOpaque() && !families[f].primaryCoverage.isEmpty
            ? families[f].primaryCoverage : nil
    }

    /// Whether family `f`'s primary face covers `scalar` (below U+231A).
    private func primaryCovers(_ f: Int, _ scalar: UInt32) -> Bool {
        // Read in place (binding the array would retain it).
        let word = Int(scalar >> 6)
        if word < families[f].primaryCoverage.count { return families[f].primaryCoverage[word] & (1 << UInt64(scalar & 63)) != 0 }
        return families[f].list.covers(0, scalar)
    }

    /// Static, so that passing `&families[f]` does not make Swift copy the selector (and with
    /// it every family's tables) to keep `self` readable during the call.
    private static func choose(_ scalars: some Collection<UInt32>, script: Script, font: FontDescriptor,
                               fonts: FontSystem, language: String, family: inout Family) throws -> FontFace {
        let presentation = EmojiPresentation(cluster: scalars)
        if presentation != .emoji, let primary = family.primary,
           scalars.allSatisfy({ isIgnorableForCoverage($0) || family.list.covers(0, $0) }) {
            return primary
        }
        let list: FallbackList
        if let known = family.byScript[script.code] {
            list = known
        } else {
            let scriptLanguage = script.language(preferring: language)
            // (A list made here is asked past its first font at once: sorted as it is made.)
            list = scriptLanguage == language
                ? family.list : try fonts.fallbackList(for: font, language: scriptLanguage, sortNow: true)
            family.byScript[script.code] = list
        }
        let index = list.candidate(forCluster: scalars, presentation: presentation)
        guard let face = list.face(at: index) ?? family.primary else {
            throw EngineError.noFontsAvailable(family: font.family)
        }
        return face
    }
}

/// Faces chosen for single code points and short clusters, direct-mapped (a newer choice
/// replaces an older one in its slot): one request's cache, in front of the shared
/// `ScalarFaces`. A key is two words: the code point or the cluster's units, and the script
/// (with the cluster's length). The table is sized to the first paragraph that sets a face
/// (the power of two at or above its units, from `firstSize` to `maxSize`) and grows to
/// `maxSize` as the request sets more: a short message sets a handful, and a table sized for
/// long text would cost it more to clear than its whole layout.
struct RecentFaces {
    private var keys: [(UInt64, UInt64)] = []
    /// Per slot, the face as 1 + its index in `faceList` (0: none): a table of small numbers
    /// is freed at the end of the request without visiting each slot, as one of faces would be.
    private var slots: [UInt8] = []
    private var faceList: [FontFace] = []
    /// Faces set past the 255 of `faceList`: not looked up, held for the request.
    private var overflow: [FontFace] = []
    private static let firstSize = 32, maxSize = 512
    /// Slots written since the table last grew: at half its size, it grows (to `maxSize`).
    private var setsSinceGrown = 0
    /// The number in `faceList` of the face set last (runs of one face set it again and again).
    private var lastNumber = -1

    /// The slot of a key in a table of `size` slots (a power of two up to `maxSize`).
    private static func slot(_ a: UInt64, _ b: UInt64, size: Int) -> Int {
        Int(truncatingIfNeeded: mixFaceKey(a, b) >> 55) & (size - 1)
    }

    /// Unretained: held by this cache (its `faceList` only grows) while it lives.
    func face(_ a: UInt64, _ b: UInt64) -> Unmanaged<FontFace>? {
        guard !keys.isEmpty else { return nil }
        let i = Self.slot(a, b, size: keys.count)
        guard keys[i] == (a, b), slots[i] != 0 else { return nil }
        return faceList.withUnsafeBufferPointer { Unmanaged.passUnretained($0[Int(slots[i]) - 1]) }
    }

    /// Keeps `face` for the key; `textLength`, the units of the paragraph it was chosen in,
    /// sizes the table when this is the first.
    mutating func set(_ face: FontFace, _ a: UInt64, _ b: UInt64, textLength: Int) {
        if keys.isEmpty {
            let size = textLength <= Self.firstSize ? Self.firstSize
                : min(Self.maxSize, 1 << (Int.bitWidth - (textLength - 1).leadingZeroBitCount))
            keys = [(UInt64, UInt64)](filledWith: (.max, .max), count: size)
            slots = [UInt8](filledWith: 0, count: size)
        } else if setsSinceGrown >= keys.count / 2, keys.count < Self.maxSize {
            grow()
        }
        // A request rarely uses more than a few faces; past 255 new ones are not kept here,
        // only held (`FontSelector.face` hands out faces unretained: each must stay alive).
        var number = lastNumber >= 0 && faceList[lastNumber] === face ? lastNumber : faceList.firstIndex { $0 === face }
        if number == nil, faceList.count < 255 {
            faceList.append(face)
            number = faceList.count - 1
        }
        guard let number else {
            if !overflow.contains(where: { $0 === face }) { overflow.append(face) }
            return
        }
        lastNumber = number
        let i = Self.slot(a, b, size: keys.count)
        keys[i] = (a, b)
        slots[i] = UInt8(number + 1)
        setsSinceGrown += 1
    }

    /// Four times the slots, the keys set so far moved to theirs.
    private mutating func grow() {
        let oldKeys = keys, oldSlots = slots
        let size = min(Self.maxSize, keys.count * 4)
        keys = [(UInt64, UInt64)](filledWith: (.max, .max), count: size)
        slots = [UInt8](filledWith: 0, count: size)
        for j in oldKeys.indices where oldSlots[j] != 0 {
            let i = Self.slot(oldKeys[j].0, oldKeys[j].1, size: size)
            keys[i] = oldKeys[j]
            slots[i] = oldSlots[j]
        }
        setsSinceGrown = 0
    }
}

/// A face key's two words mixed into one hash whose high bits are well spread (multiply-
/// shift; the tables of `RecentFaces` and `ScalarFaces` take their slots from the top).
func mixFaceKey(_ a: UInt64, _ b: UInt64) -> UInt64 {
    (a ^ b &* 0x2545_F491_4F6C_DD1D) &* 0x9E37_79B9_7F4A_7C15
}

/// Whether a cluster starting with `scalar` keeps the font before it: space separators
/// (but OGHAM SPACE MARK, which has ink), controls, format characters, variation selectors.
func keepsPreviousFont(_ scalar: UInt32) -> Bool {
    // Most text first: printable ASCII, and CJK through the Hangul syllables.
    if scalar > 0x20 && scalar < 0x7F || scalar > 0x3000 && scalar < 0xFE00 { return false }
    switch scalar {
    case 0x20, 0xA0, 0x2000...0x200F, 0x2028...0x202F, 0x205F...0x206F, 0x3000, 0xFEFF, 0xFE00...0xFE0F,
         0xE0001...0xE007F, 0xE0100...0xE01EF, 0...0x1F, 0x7F...0x9F, 0xAD, 0x061C, 0x180E:
        return true
    default:
        return false
    }
}
