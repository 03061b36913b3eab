import CFontconfig
import Synchronization

/// The fonts fontconfig orders for one descriptor: the best match for the family first, then
/// the rest in fontconfig's fallback order (`FcFontSort`), each with its character coverage.
///
/// Owns the `FcFontSet` the coverage sets live in; faces are opened lazily through a
/// `FaceLoader` and kept in this list once opened. Safe to share between threads.
final class FallbackList: @unchecked Sendable {
    private let fontSet: UnsafeMutablePointer<FcFontSet>
    /// File and face index of each candidate, in fallback order.
    let identities: [FaceIdentity]
    /// Coverage of each candidate (borrowed from `fontSet`; nil when fontconfig knows none).
    private let charsets: [OpaquePointer?]
    /// Whether each candidate is a color font (fontconfig's `color`), as emoji fonts are.
    let isColor: [Bool]
    /// Opened faces by candidate index; nil records a file that could not be read.
    private let faces: Mutex<[Int: FontFace?]> = Mutex([:])
    private let loader: FaceLoader
    /// The first candidate's coverage below `firstCoverageLimit` as bits, made on first use.
    private let firstCoverage: Mutex<[UInt64]?> = Mutex(nil)
    /// Code points below this have their coverage by the first candidate as bits.
    static let firstCoverageLimit: UInt32 = 0x2400

    init(config: FontConfiguration, descriptor: FontDescriptor.SelectionKey, language: String,
         loader: FaceLoader) throws {
        guard let pattern = FcPatternCreate() else { throw EngineError.noFontsAvailable(family: descriptor.family) }
        defer { FcPatternDestroy(pattern) }
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
        var result = FcResultNoMatch
        guard let set = FcFontSort(config.config, pattern, FcBool(FcTrue), nil, &result),
              set.pointee.nfont > 0 else {
            throw EngineError.noFontsAvailable(family: descriptor.family)
        }
        var identities: [FaceIdentity] = []
        var charsets: [OpaquePointer?] = []
        var isColor: [Bool] = []
        var seen: Set<FaceIdentity> = []
        for i in 0..<Int(set.pointee.nfont) {
            guard let font = set.pointee.fonts[i] else { continue }
            guard let (path, instance) = fontFile(of: font) else { continue }
            // A variable font's named instance (index n << 16 | face) is its face at set axis
            // values: use the face, and set the axes from the request (weight → wght).
            let index = instance & 0xFFFF
            var charset: OpaquePointer?
            if FcPatternGetCharSet(font, FC_CHARSET, 0, &charset) != FcResultMatch { charset = nil }
            let identity = FaceIdentity(path: path, index: Int(index))
            guard seen.insert(identity).inserted else { continue }
            identities.append(identity)
            charsets.append(charset)
            var color: FcBool = 0
            isColor.append(FcPatternGetBool(font, FC_COLOR, 0, &color) == FcResultMatch && color != 0)
        }
        guard !identities.isEmpty else {
            FcFontSetDestroy(set)
            throw EngineError.noFontsAvailable(family: descriptor.family)
        }
        self.fontSet = set
        self.identities = identities
        self.charsets = charsets
        self.isColor = isColor
        self.loader = loader
    }

    deinit { FcFontSetDestroy(fontSet) }

    var count: Int { identities.count }

    /// Whether candidate `index` has a glyph for `scalar` (per fontconfig's coverage).
    func covers(_ index: Int, _ scalar: UInt32) -> Bool {
        guard let charset = charsets[index] else { return false }
        return FcCharSetHasChar(charset, scalar) == FcTrue
    }

    /// Bit `s` (word `s / 64`) tells whether the first candidate covers code point `s`, for
    /// every `s` below `firstCoverageLimit`. Made once per list (fontconfig asked per code
    /// point), then shared by every request: a cluster in the primary font costs a bit test.
    func firstCandidateCoverage() -> [UInt64] {
        if let known = firstCoverage.withLock({ $0 }) { return known }
        var bits = [UInt64](repeating: 0, count: Int(Self.firstCoverageLimit) / 64)
        for scalar in 0..<Self.firstCoverageLimit where covers(0, scalar) {
            bits[Int(scalar >> 6)] |= 1 << UInt64(scalar & 63)
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
        let face = try? loader.face(identities[index])
        faces.withLock { $0[index] = .some(face) }
        return face
    }

    /// The first candidate whose coverage holds every scalar of a grapheme cluster that needs
    /// a glyph (default-ignorable code points such as ZWJ and variation selectors need none).
    /// With emoji presentation, color fonts come first; with text presentation, they come
    /// last. Failing all, the first that holds the cluster's first scalar; failing that, the
    /// first font that can be opened.
    func candidate(forCluster scalars: some Collection<UInt32>, presentation: EmojiPresentation = .unspecified) -> Int {
        switch presentation {
        case .unspecified:
            return candidate(scalars) { _ in true } ?? lastResort(scalars)
        case .emoji:
            return candidate(scalars) { self.isColor[$0] } ?? candidate(scalars) { _ in true } ?? lastResort(scalars)
        case .text:
            return candidate(scalars) { !self.isColor[$0] } ?? candidate(scalars) { _ in true } ?? lastResort(scalars)
        }
    }

    private func candidate(_ scalars: some Collection<UInt32>, where allowed: (Int) -> Bool) -> Int? {
        for i in 0..<count where allowed(i) {
            var all = true
            for s in scalars where !isIgnorableForCoverage(s) {
                if !covers(i, s) { all = false; break }
            }
            if all, face(at: i) != nil { return i }
        }
        return nil
    }

    private func lastResort(_ scalars: some Collection<UInt32>) -> Int {
        let base = scalars.first ?? 0x20
        for i in 0..<count where covers(i, base) && face(at: i) != nil { return i }
        for i in 0..<count where face(at: i) != nil { return i }
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
