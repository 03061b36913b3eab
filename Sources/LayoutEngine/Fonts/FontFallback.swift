import CFontconfig
import Synchronization

/// Serializes fontconfig's matching and sorting (`FcFontMatch`, `FcFontSort`), shared by a
/// `FontSystem` and its fallback lists.
final class FontconfigLock: Sendable {
    let mutex = Mutex(())
}

/// The fonts fontconfig orders for one descriptor: the best match for the family first
/// (`FcFontMatch`), then the rest in fontconfig's fallback order (`FcFontSort`, without the
/// first), each with its character coverage. The sort, which costs several times the match
/// (about a millisecond over a few hundred fonts), runs only when a candidate after the
/// first is asked for: text the first font covers never needs it.
///
/// Owns the sorted `FcFontSet` the coverage sets live in (and a reference to the first's);
/// faces are opened lazily through a `FaceLoader` and kept in this list once opened. Safe
/// to share between threads.
final class FallbackList: @unchecked Sendable {
    /// The candidates in fallback order, the first one first. (Sendable: the coverage sets are
    /// read only, and live as long as the list.)
    struct Candidates: @unchecked Sendable {
        /// File and face index of each candidate.
        var identities: [FaceIdentity] = []
        /// Coverage of each candidate (borrowed from the patterns added, or for the first
        /// the list's own reference; nil when fontconfig knows none).
        var charsets: [OpaquePointer?] = []
        /// Whether each candidate is a color font (fontconfig's `color`), as emoji fonts are.
        var isColor: [Bool] = []
        private var seen: Set<FaceIdentity> = []

        /// Adds `font` (a fontconfig pattern, which must outlive these candidates) unless it
        /// names no file or a face already here.
        mutating func append(_ font: OpaquePointer) {
            guard let (path, instance) = fontFile(of: font) else { return }
            // A variable font's named instance (index n << 16 | face) is its face at set axis
            // values: use the face, and set the axes from the request (weight → wght).
            let identity = FaceIdentity(path: path, index: Int(instance & 0xFFFF))
            guard seen.insert(identity).inserted else { return }
            var charset: OpaquePointer?
            if FcPatternGetCharSet(font, FC_CHARSET, 0, &charset) != FcResultMatch { charset = nil }
            var color: FcBool = 0
            identities.append(identity)
            charsets.append(charset)
            isColor.append(FcPatternGetBool(font, FC_COLOR, 0, &color) == FcResultMatch && color != 0)
        }

        /// The first candidate alone.
        var firstAlone: Candidates {
            var alone = Candidates()
            alone.identities = [identities[0]]
            alone.charsets = [charsets[0]]
            alone.isColor = [isColor[0]]
            alone.seen = [identities[0]]
            return alone
        }
    }

    private let config: FontConfiguration
    private let lock: FontconfigLock
    /// What the list is for (its pattern is made again for the sort: fontconfig keeps a
    /// pattern's values at offsets, which leak checkers cannot follow, so none is kept).
    private let descriptor: FontDescriptor.SelectionKey
    private let language: String
    /// The first candidate alone (`FcFontMatch`'s answer, or the sort's first for a list
    /// sorted as it is made).
    private let first: Candidates
    /// Every candidate, once sorted; and the `FcFontSet` their coverage lives in.
    private let sorted: Mutex<(candidates: Candidates, fontSet: Unshared<UnsafeMutablePointer<FcFontSet>>?)?> = Mutex(nil)
    /// Opened faces by candidate index; nil records a file that could not be read.
    private let faces: Mutex<[Int: FontFace?]> = Mutex([:])
    private let loader: FaceLoader
    /// The first candidate's coverage below `firstCoverageLimit` as bits, made on first use.
    private let firstCoverage: Mutex<[UInt64]?> = Mutex(nil)
    /// Code points below this have their coverage by the first candidate as bits.
    static let firstCoverageLimit: UInt32 = 0x2400

    /// Matches `descriptor` in `language` ("" for none) under `lock`, and sorts the rest now
    /// if `sortNow` (for a list made because a character needs a font after the first). Fails
    /// with `noFontsAvailable` when fontconfig has no font for it.
    init(config: FontConfiguration, descriptor: FontDescriptor.SelectionKey, language: String,
         loader: FaceLoader, lock: FontconfigLock, sortNow: Bool = false) throws {
        var first = Candidates()
        if sortNow {
            // The sort's first is the first candidate: no match asked.
            let (all, set) = Self.sort(config: config, descriptor: descriptor, language: language, lock: lock,
                                       after: Candidates())
            guard !all.identities.isEmpty else {
                if let set { FcFontSetDestroy(set) }
                throw EngineError.noFontsAvailable(family: descriptor.family)
            }
            first = all.firstAlone
            sorted.withLock { $0 = (all, set.map(Unshared.init)) }
        } else {
            // (Under the lock, as fontconfig's calls always are here.) The match's answer is
            // read and destroyed there.
            let found = lock.mutex.withLock { _ -> Unshared<Candidates?> in
                guard let pattern = Self.pattern(config: config, descriptor: descriptor, language: language) else {
                    return Unshared(nil)
                }
                defer { FcPatternDestroy(pattern) }
                var result = FcResultNoMatch
                guard let matched = FcFontMatch(config.config, pattern, &result) else { return Unshared(nil) }
                defer { FcPatternDestroy(matched) }
                var first = Candidates()
                first.append(matched)
                return Unshared(first.identities.isEmpty ? nil : first)
            }.value
            guard let found else { throw EngineError.noFontsAvailable(family: descriptor.family) }
            first = found
        }
        // The first's coverage set, by a reference of the list's own (released in deinit).
        first.charsets[0] = first.charsets[0].flatMap { FcCharSetCopy($0) }
        self.config = config
        self.lock = lock
        self.descriptor = descriptor
        self.language = language
        self.first = first
        self.loader = loader
    }

    /// `after`, then the fonts of `FcFontSort`'s answer for `descriptor` in `language` not
    /// in it, and the font set their coverage lives in (the caller's to destroy).
    private static func sort(config: FontConfiguration, descriptor: FontDescriptor.SelectionKey, language: String,
                             lock: FontconfigLock, after: Candidates)
        -> (Candidates, UnsafeMutablePointer<FcFontSet>?) {
        var result = FcResultNoMatch
        let set = lock.mutex.withLock { _ in
            let pattern = Self.pattern(config: config, descriptor: descriptor, language: language)
            defer { if let pattern { FcPatternDestroy(pattern) } }
            return Unshared(pattern.flatMap { FcFontSort(config.config, $0, FcBool(FcTrue), nil, &result) })
        }.value
        var all = after
        if let set {
            for i in 0..<Int(set.pointee.nfont) {
                if let font = set.pointee.fonts[i] { all.append(font) }
            }
        }
        return (all, set)
    }

    /// The fontconfig pattern for `descriptor` in `language`, with the configuration's and
    /// the default substitutions made: what `FcFontMatch` and `FcFontSort` are asked. The
    /// caller owns it (`FcPatternDestroy`); nil when fontconfig cannot make one.
    static func pattern(config: FontConfiguration, descriptor: FontDescriptor.SelectionKey,
                        language: String) -> OpaquePointer? {
        guard let pattern = FcPatternCreate() else { return nil }
        for family in descriptor.family.split(separator: ",") {
            let name = family.trimmingSpaces
            if !name.isEmpty { name.withCString { _ = FcPatternAddString(pattern, FC_FAMILY, fcString($0)) } }
        }
        FcPatternAddInteger(pattern, FC_WEIGHT, FcWeightFromOpenType(Int32(descriptor.weight)))
        let slant: Int32 = switch descriptor.style {
        case .normal: 0      // FC_SLANT_ROMAN
        case .italic: 100    // FC_SLANT_ITALIC
        case .oblique: 110   // FC_SLANT_OBLIQUE
        }
        FcPatternAddInteger(pattern, FC_SLANT, slant)
        if !language.isEmpty {
            language.withCString { _ = FcPatternAddString(pattern, FC_LANG, fcString($0)) }
        }
        FcConfigSubstitute(config.config, pattern, FcMatchPattern)
        FcDefaultSubstitute(pattern)
        return pattern
    }

    /// Whether the rest of the candidates have been sorted yet.
    var isSorted: Bool { sorted.withLock { $0 != nil } }

    deinit {
        sorted.withLock { if let set = $0?.fontSet { FcFontSetDestroy(set.value) } }
        if let charset = first.charsets[0] { FcCharSetDestroy(charset) }
    }

    /// Every candidate: the first, then `FcFontSort`'s order without it (sorted on first use;
    /// the first alone if the sort finds nothing).
    var candidates: Candidates {
        if let known = sorted.withLock({ $0?.candidates }) { return known }
        let (all, set) = Self.sort(config: config, descriptor: descriptor, language: language, lock: lock, after: first)
        let madeSet = set.map(Unshared.init)
        return sorted.withLock { stored in
            if let stored {
                if let set { FcFontSetDestroy(set) }   // another thread sorted first
                return stored.candidates
            }
            stored = (all, madeSet)
            return all
        }
    }

    var count: Int { candidates.identities.count }

    /// File and face index of each candidate, in fallback order.
    var identities: [FaceIdentity] { candidates.identities }

    /// Whether candidate `index` has a glyph for `scalar` (per fontconfig's coverage).
    func covers(_ index: Int, _ scalar: UInt32) -> Bool {
        Self.has(index == 0 ? first.charsets[0] : candidates.charsets[index], scalar)
    }

    /// Whether coverage set `charset` (nil: none known) holds `scalar`.
    private static func has(_ charset: OpaquePointer?, _ scalar: UInt32) -> Bool {
        guard let charset else { return false }
        return FcCharSetHasChar(charset, scalar) == FcTrue
    }

    /// Whether candidate `index` is a color font.
    func isColor(_ index: Int) -> Bool {
        index == 0 ? first.isColor[0] : candidates.isColor[index]
    }

    /// Bit `s` (word `s / 64`) tells whether the first candidate covers code point `s`, for
    /// every `s` below `firstCoverageLimit`. Made once per list (from fontconfig's coverage
    /// read a 256-code-point page at a time), then shared by every request: a cluster in the
    /// primary font costs a bit test.
    func firstCandidateCoverage() -> [UInt64] {
        if let known = firstCoverage.withLock({ $0 }) { return known }
        var bits = [UInt64](repeating: 0, count: Int(Self.firstCoverageLimit) / 64)
        if let charset = first.charsets[0] {
            // A page: 256 bits as eight 32-bit words (FC_CHARSET_MAP_SIZE), pages ascending,
            // FC_CHARSET_DONE (all ones) after the last.
            var map = [FcChar32](repeating: 0, count: 8)
            var next: FcChar32 = 0
            var base = FcCharSetFirstPage(charset, &map, &next)
            while base != FcChar32.max, base < Self.firstCoverageLimit {
                for i in 0..<8 where map[i] != 0 {
                    let first = Int(base) + i * 32
                    bits[first >> 6] |= UInt64(map[i]) << UInt64(first & 63)
                }
                base = FcCharSetNextPage(charset, &map, &next)
            }
        }
        return firstCoverage.withLock { stored in
            if stored == nil { stored = bits }
            return stored!
        }
    }

    /// The opened face of candidate `index`, or nil when its file cannot be read (it is then
    /// skipped as if it covered nothing).
    func face(at index: Int) -> FontFace? {
        if let known = faces.withLock({ $0[index] }) { return known }
        let face = try? loader.face(index == 0 ? first.identities[0] : candidates.identities[index])
        faces.withLock { $0[index] = .some(face) }
        return face
    }

    /// The first candidate whose coverage holds every scalar of a grapheme cluster that needs
    /// a glyph (default-ignorable code points such as ZWJ and variation selectors need none).
    /// With emoji presentation, color fonts come first; with text presentation, they come
    /// last. Failing all, the first that holds the cluster's first scalar; failing that, the
    /// first font that can be opened.
    func candidate(forCluster scalars: some Collection<UInt32>, presentation: EmojiPresentation = .unspecified) -> Int {
        // The first candidate, when it is the answer, without sorting the rest.
        let firstAllowed = switch presentation {
        case .unspecified: true
        case .emoji: isColor(0)
        case .text: !isColor(0)
        }
        if firstAllowed, scalars.allSatisfy({ isIgnorableForCoverage($0) || covers(0, $0) }), face(at: 0) != nil {
            return 0
        }
        switch presentation {
        case .unspecified:
            return candidate(scalars, color: nil) ?? lastResort(scalars)
        case .emoji:
            return candidate(scalars, color: true) ?? candidate(scalars, color: nil) ?? lastResort(scalars)
        case .text:
            return candidate(scalars, color: false) ?? candidate(scalars, color: nil) ?? lastResort(scalars)
        }
    }

    /// The first candidate covering every scalar of the cluster that needs a glyph, among the
    /// color fonts (`color` true), the others (false) or all (nil), whose face opens.
    private func candidate(_ scalars: some Collection<UInt32>, color: Bool?) -> Int? {
        let all = candidates
        for i in all.identities.indices where color == nil || all.isColor[i] == color {
            let charset = all.charsets[i]
            if scalars.allSatisfy({ isIgnorableForCoverage($0) || Self.has(charset, $0) }), face(at: i) != nil { return i }
        }
        return nil
    }

    private func lastResort(_ scalars: some Collection<UInt32>) -> Int {
        let base = scalars.first ?? 0x20
        let all = candidates
        for i in all.identities.indices {
            if Self.has(all.charsets[i], base), face(at: i) != nil { return i }
        }
        for i in all.identities.indices where face(at: i) != nil { return i }
        return 0
    }
}

/// How a cluster asks to be drawn (UTS #51): as an emoji (a color glyph), as text, or
/// without saying.
enum EmojiPresentation {
    case unspecified, emoji, text

    /// The presentation of a grapheme cluster: U+FE0E asks for text; U+FE0F, a keycap, a
    /// skin-tone modifier, a ZWJ sequence, a flag, a tag sequence, or a first character
    /// whose default presentation is emoji ask for emoji.
    init(cluster scalars: some Collection<UInt32>) {
        guard let first = scalars.first else { self = .unspecified; return }
        var emoji = first >= 0x1F1E6 && first <= 0x1F1FF
        for s in scalars {
            switch s {
            case 0xFE0E: self = .text; return
            case 0xFE0F, 0x20E3, 0x1F3FB...0x1F3FF, 0xE0020...0xE007F: emoji = true
            case 0x200D:
                // Only after a pictograph: Indic and Arabic text use ZWJ too.
                if first > 0xFF, let scalar = Unicode.Scalar(first), scalar.properties.isEmoji { emoji = true }
            default: break
            }
        }
        if !emoji, first >= 0x231A, let scalar = Unicode.Scalar(first), scalar.properties.isEmojiPresentation {
            emoji = true
        }
        self = emoji ? .emoji : .unspecified
    }
}

/// Code points a font need not map for a cluster to render: joiners, variation selectors and
/// other default-ignorable code points, which shapers hide.
@inline(__always)
func isIgnorableForCoverage(_ s: UInt32) -> Bool {
    switch s {
    case 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x206F, 0xFE00...0xFE0F, 0xFEFF,
         0xE0000...0xE0FFF, 0x00AD, 0x034F, 0x180B...0x180F:
        return true
    default:
        return false
    }
}

extension Substring {
    var trimmingSpaces: String {
        var s = self[...]
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}

/// A fontconfig object passed out of a lock's closure: owned by one thread at a time (the
/// caller takes it over), so it crosses as if it were Sendable.
struct Unshared<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
