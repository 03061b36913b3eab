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
        /// The dictionary files of the folder, listed on first use (nil before): a language
        /// is looked up in it, so that requests naming ever new languages make no system calls
        /// and leave nothing behind.
        var files: Set<String>?
        /// The dictionaries loaded, by file name, and the files that would not load: both
        /// bounded by the folder's files.
        var loaded: [String: HyphenationDictionary] = [:]
        var unusable: Set<String> = []
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
    func candidateNames(_ language: String) -> [String] {
        let parts = language.split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        guard let primary = parts.first?.lowercased(), !primary.isEmpty, primary.allSatisfy(\.isLetter) else { return [] }
        var names: [String] = []
        if let region = parts.dropFirst().first(where: { $0.count == 2 && $0.allSatisfy(\.isLetter) }) {
            names.append("hyph_\(primary)_\(region.uppercased()).dic")
        }
        names.append("hyph_\(primary).dic")
        names.append("hyph_\(primary)_\(primary.uppercased()).dic")
        return names
    }

    /// The dictionary for `language`, loaded on first use; nil when the folder has none.
    public func dictionary(for language: String) -> HyphenationDictionary? {
        if state.withLock({ $0.files == nil }) {
            let listed = Self.dictionaryFiles(in: folder)
            state.withLock { s in if s.files == nil { s.files = listed } }
        }
        for name in candidateNames(language) {
            let known = state.withLock { s -> (present: Bool, loaded: HyphenationDictionary?) in
                (s.files?.contains(name) == true && !s.unusable.contains(name), s.loaded[name])
            }
            if let loaded = known.loaded { return loaded }
            guard known.present else { continue }
            let made = try? HyphenationDictionary(path: "\(folder)/\(name)")
            let kept = state.withLock { s -> HyphenationDictionary? in
                if let raced = s.loaded[name] { return raced }
                if let made { s.loaded[name] = made } else { s.unusable.insert(name) }
                return made
            }
            if let kept { return kept }
        }
        return nil
    }

    /// The names of the `hyph_*.dic` files in `folder` (none when it cannot be read).
    static func dictionaryFiles(in folder: String) -> Set<String> {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var names = Set<String>()
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("hyph_"), name.hasSuffix(".dic") { names.insert(name) }
        }
        return names
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
            Counts(dictionaries: s.loaded.count, cachedWords: s.words.count,
                   hits: s.hits, misses: s.misses)
        }
    }
}
