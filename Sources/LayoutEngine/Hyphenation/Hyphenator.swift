import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The hyphenation dictionaries of a folder (Debian's hyphen-* packages put theirs in
/// /usr/share/hyphen), each loaded once, on first use, and the break points of the words
/// looked up, kept up to a bound. Thread-safe.
public final class Hyphenator: Sendable {
    public let folder: String
    /// Most words whose break points are kept.
    public let capacity: Int
    private let state: Mutex<State>

    private struct State {
        /// By language tag as asked for; nil: no dictionary for it (remembered too).
        var dictionaries: [String: HyphenationDictionary?] = [:]
        var words: BoundedCache<WordKey, [Int]>
        var hits = 0, misses = 0
    }

    private struct WordKey: Hashable {
        var language: String
        var word: [UInt16]
        var before: Int, after: Int
    }

    /// What `stats` reports.
    public struct Counts: Sendable, Equatable {
        public var dictionaries: Int, cachedWords: Int, hits: Int, misses: Int

        public init(dictionaries: Int, cachedWords: Int, hits: Int, misses: Int) {
            self.dictionaries = dictionaries
            self.cachedWords = cachedWords
            self.hits = hits
            self.misses = misses
        }
    }

    public init(folder: String = "/usr/share/hyphen", cachedWords: Int = 50_000) {
        self.folder = folder
        self.capacity = cachedWords
        state = Mutex(State(words: BoundedCache(capacity: cachedWords)))
    }

    /// The dictionary files a BCP 47 tag may use, most specific first: `de-CH` →
    /// `hyph_de_CH.dic`, `hyph_de.dic`; `en` → `hyph_en.dic`, `hyph_en_US.dic` (a language's
    /// main region, as Debian links them).
    func candidateFiles(_ language: String) -> [String] {
        let parts = language.split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        guard let primary = parts.first?.lowercased(), !primary.isEmpty, primary.allSatisfy(\.isLetter) else { return [] }
        var names: [String] = []
        if let region = parts.dropFirst().first(where: { $0.count == 2 && $0.allSatisfy(\.isLetter) }) {
            names.append("hyph_\(primary)_\(region.uppercased()).dic")
        }
        names.append("hyph_\(primary).dic")
        names.append("hyph_\(primary)_\(primary.uppercased()).dic")
        return names.map { "\(folder)/\($0)" }
    }

    /// The dictionary for `language`, loaded on first use; nil when the folder has none.
    public func dictionary(for language: String) -> HyphenationDictionary? {
        if let known = state.withLock({ $0.dictionaries[language] }) { return known }
        let found = candidateFiles(language).lazy.filter { access($0, R_OK) == 0 }
            .compactMap { try? HyphenationDictionary(path: $0) }.first
        return state.withLock { s in
            if let raced = s.dictionaries[language] { return raced }
            s.dictionaries[language] = .some(found)
            return found
        }
    }

    /// `HyphenationDictionary.breakPoints` of `word` in `language`, from the cache when it
    /// was looked up before; nil when there is no dictionary for the language.
    public func breakPoints(in word: [UInt16], language: String, before: Int, after: Int) -> [Int]? {
        let key = WordKey(language: language, word: word, before: before, after: after)
        if let cached = state.withLock({ s -> [Int]? in
            let found = s.words[key]
            if found != nil { s.hits += 1 }
            return found
        }) { return cached }
        guard let dictionary = dictionary(for: language) else { return nil }
        let points = dictionary.breakPoints(in: word, before: before, after: after)
        state.withLock { s in
            s.misses += 1
            s.words[key] = points
        }
        return points
    }

    public var counts: Counts {
        state.withLock { s in
            Counts(dictionaries: s.dictionaries.values.filter { $0 != nil }.count, cachedWords: s.words.count,
                   hits: s.hits, misses: s.misses)
        }
    }
}
