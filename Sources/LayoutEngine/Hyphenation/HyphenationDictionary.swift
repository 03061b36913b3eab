import CHyphen
#if canImport(Glibc)
import Glibc
#endif

/// Why a hyphenation dictionary could not be used.
public struct HyphenationError: Error, CustomStringConvertible {
    public var description: String
}

/// One libhyphen dictionary (Liang's patterns, a `hyph_*.dic` file), owned: freed in
/// `deinit`. libhyphen only reads a loaded dictionary (each call writes the buffers it is
/// given), so one serves every thread.
public final class HyphenationDictionary: @unchecked Sendable {
    private let dictionary: UnsafeMutablePointer<HyphenDict>
    /// The dictionary's own minimum characters before and after a break (its
    /// LEFTHYPHENMIN and RIGHTHYPHENMIN; 0 when it sets none).
    public let leftMinimum: Int
    public let rightMinimum: Int
    private let encoding: WordEncoding

    /// How the dictionary's patterns spell words: its first line names the character set.
    enum WordEncoding {
        case utf8
        /// ISO 8859-1: one byte per character, U+0000 to U+00FF.
        case latin1
    }

    /// Longest word looked up, in characters: longer "words" are URLs, codes or noise, and
    /// no dictionary has patterns for them.
    static let longestWord = 64

    public init(path: String) throws(HyphenationError) {
        guard let loaded = hnj_hyphen_load(path) else {
            throw HyphenationError(description: "cannot load the hyphenation dictionary \(path)")
        }
        let charset = withUnsafeBytes(of: loaded.pointee.cset) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }.uppercased()
        if loaded.pointee.utf8 != 0 || charset == "UTF-8" {
            encoding = .utf8
        } else if charset == "ISO8859-1" || charset == "ISO-8859-1" {
            encoding = .latin1
        } else {
            hnj_hyphen_free(loaded)
            throw HyphenationError(description: "\(path) spells its patterns in \(charset), which layoutd does not read (UTF-8 and ISO8859-1 only)")
        }
        dictionary = loaded
        leftMinimum = Int(loaded.pointee.lhmin)
        rightMinimum = Int(loaded.pointee.rhmin)
    }

    deinit { hnj_hyphen_free(dictionary) }

    /// The UTF-16 offsets inside `word` (its units; letters only, one word) where it may be
    /// hyphenated, with at least `before` characters before the break and `after` after it
    /// (CSS Text 4 `hyphenate-limit-chars`), the dictionary's own minimums applied too. Empty
    /// for a word with anything but letters and marks, a word longer than `longestWord`, or
    /// one whose letters the dictionary cannot spell. Only standard breaks: a pattern that
    /// changes the spelling at the break (libhyphen's non-standard hyphenation) is skipped.
    public func breakPoints(in word: [UInt16], before: Int, after: Int) -> [Int] {
        guard let spelled = spell(word) else { return [] }
        let hyphens = libhyphenBreaks(spelled.bytes, characters: spelled.ends.count)
        let count = spelled.ends.count
        let first = max(before, leftMinimum, 1), last = count - max(after, rightMinimum, 1)
        guard first <= last else { return [] }
        var points: [Int] = []
        for k in first...last where hyphens[k - 1] {
            // A break after character k - 1.
            points.append(spelled.ends[k - 1])
        }
        return points
    }

    /// The word lowercased and encoded as the patterns spell it, with the UTF-16 end of each
    /// character; nil when it cannot be.
    private func spell(_ word: [UInt16]) -> (bytes: [UInt8], ends: [Int])? {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        var unit = 0
        for scalar in String(decoding: word, as: UTF16.self).unicodeScalars {
            unit += scalar.utf16.count
            let category = scalar.properties.generalCategory
            guard scalar.properties.isAlphabetic || category == .nonspacingMark || category == .spacingMark else { return nil }
            let lower = scalar.properties.lowercaseMapping.unicodeScalars
            guard lower.count == 1, let letter = lower.first else { return nil }
            switch encoding {
            case .utf8: bytes += Array(String(letter).utf8)
            case .latin1:
                guard letter.value <= 0xFF else { return nil }
                bytes.append(UInt8(letter.value))
            }
            ends.append(unit)
        }
        guard !ends.isEmpty, ends.count <= Self.longestWord, unit == word.count else { return nil }
        return (bytes, ends)
    }

    /// libhyphen's verdict per character (it counts a UTF-8 dictionary's words in characters,
    /// not bytes): a break may follow it (an odd digit), and the spelling stays as it is there.
    private func libhyphenBreaks(_ bytes: [UInt8], characters: Int) -> [Bool] {
        var hyphens = [CChar](repeating: 0, count: bytes.count + 5)
        var replacements: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        var positions: UnsafeMutablePointer<Int32>?
        var cuts: UnsafeMutablePointer<Int32>?
        let word = bytes.map { CChar(bitPattern: $0) }
        _ = hnj_hyphen_hyphenate2(dictionary, word, Int32(word.count), &hyphens, nil, &replacements, &positions, &cuts)
        var breaks = (0..<characters).map { hyphens[$0] & 1 == 1 }
        if let replacements {
            // Each entry was malloc'ed by libhyphen, as were the arrays (one entry per byte).
            for i in 0..<bytes.count {
                if let replacement = replacements[i] {
                    if i < characters { breaks[i] = false }
                    free(replacement)
                }
            }
            free(replacements)
        }
        free(positions)
        free(cuts)
        return breaks
    }
}
