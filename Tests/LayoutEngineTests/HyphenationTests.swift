@testable import LayoutEngine
import Testing

/// libhyphen's break points through the engine's owner of its dictionaries: Debian's
/// hyphen-en-us, hyphen-de and hyphen-fr (scripts/setup installs them), with CSS's minimums
/// (two characters before and after) and each dictionary's own.
@Suite struct HyphenationTests {
    /// One for the suite: each dictionary loads once.
    static let shared = Hyphenator()
    var hyphenator: Hyphenator { Self.shared }

    /// `word` with a hyphen at each break point.
    func hyphenated(_ word: String, _ language: String, before: Int = 2, after: Int = 2) throws -> String {
        let units = Array(word.utf16)
        let points = try #require(hyphenator.breakPoints(in: units, language: language, before: before, after: after))
        var out: [UInt16] = []
        for (i, unit) in units.enumerated() {
            if points.contains(i) { out.append(0x2D) }
            out.append(unit)
        }
        return String(decoding: out, as: UTF16.self)
    }

    @Test(arguments: [
        ("hyphenation", "hy-phen-ation"), ("typography", "ty-pog-ra-phy"), ("international", "in-ter-na-tional"),
        ("breaking", "break-ing"), ("Hyphenation", "Hy-phen-ation"), ("layout", "lay-out"),
    ])
    func english(_ word: String, _ expected: String) throws {
        #expect(try hyphenated(word, "en-US") == expected)
    }

    /// hyph_de_DE.dic spells its patterns in ISO 8859-1: umlauts and ß must reach it so.
    @Test(arguments: [
        ("Silbentrennung", "Sil-ben-tren-nung"), ("Donaudampfschifffahrt", "Do-nau-dampf-schiff-fahrt"),
        ("Zucker", "Zu-cker"), ("Übersetzung", "Über-set-zung"), ("Schriftsatz", "Schrift-satz"),
    ])
    func german(_ word: String, _ expected: String) throws {
        #expect(try hyphenated(word, "de") == expected)
    }

    @Test(arguments: [
        ("typographie", "ty-po-gra-phie"), ("césure", "cé-sure"), ("dictionnaire", "dic-tion-naire"),
        ("ordinateur", "or-di-na-teur"),
    ])
    func french(_ word: String, _ expected: String) throws {
        #expect(try hyphenated(word, "fr-FR") == expected)
    }

    @Test func minimumsNonWordsAndMissingLanguages() throws {
        #expect(try hyphenated("hyphenation", "en", before: 3, after: 5) == "hyphen-ation")
        #expect(try hyphenated("typography", "en", before: 4, after: 4) == "typog-raphy")
        // Not a word of letters: digits, a URL, an emoji.
        for word in ["h4ck3r", "example.com", "ok👍"] { #expect(try hyphenated(word, "en") == word) }
        #expect(hyphenator.breakPoints(in: Array("Wort".utf16), language: "xx", before: 2, after: 2) == nil)
        #expect(hyphenator.breakPoints(in: Array("Wort".utf16), language: "", before: 2, after: 2) == nil)
    }

    /// Languages are found in the folder's listing: tags without a dictionary, however many,
    /// load nothing and keep nothing.
    @Test func unknownLanguagesLoadAndKeepNothing() throws {
        let fresh = Hyphenator(cachedWords: 8)
        for a in UnicodeScalar("a").value...UnicodeScalar("z").value {
            for b in UnicodeScalar("a").value...UnicodeScalar("z").value {
                let tag = "q\(Character(UnicodeScalar(a)!))\(Character(UnicodeScalar(b)!))-XY"
                #expect(fresh.breakPoints(in: Array("hyphenation".utf16), language: tag, before: 2, after: 2) == nil)
            }
        }
        #expect(fresh.counts == Hyphenator.Counts(dictionaries: 0, cachedWords: 0, hits: 0, misses: 0))
        #expect(Hyphenator.dictionaryFiles(in: fresh.folder).isSuperset(of: ["hyph_en_US.dic", "hyph_de_DE.dic", "hyph_fr.dic"]))
        #expect(Hyphenator.dictionaryFiles(in: "/nonexistent-folder").isEmpty)
    }

    @Test func dictionariesLoadOnceAndWordsAreCached() throws {
        let fresh = Hyphenator(cachedWords: 8)
        for _ in 0..<3 { _ = fresh.breakPoints(in: Array("hyphenation".utf16), language: "en", before: 2, after: 2) }
        _ = fresh.breakPoints(in: Array("Zucker".utf16), language: "de-AT", before: 2, after: 2)
        #expect(fresh.counts == Hyphenator.Counts(dictionaries: 2, cachedWords: 2, hits: 2, misses: 2))
        for i in 0..<20 { _ = fresh.breakPoints(in: Array("word\(i)x".utf16), language: "en", before: 2, after: 2) }
        #expect(fresh.counts.cachedWords <= 8)
    }
}
