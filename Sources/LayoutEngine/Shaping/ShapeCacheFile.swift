import CHarfBuzz

/// Why a shape cache file was not read back (`TextLayoutEngine.restoreShapeCacheFile`). None of
/// its words is kept then: the cache starts empty, as without the file.
public enum ShapeCacheFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a shape cache file of this format (another file, or one of another format version).
    case notAShapeCacheFile
    /// Written by another HarfBuzz or another layoutd: words may shape otherwise now.
    case otherShaper(saved: String, running: String)
    /// The fonts (fontconfig file, or a face's file, size or date) changed since it was written.
    case fontsChanged
    /// Cut short, or its bytes changed after it was written (checksum), or it holds a value
    /// no layoutd writes.
    case damaged(String)

    public var description: String {
        switch self {
        case .notAShapeCacheFile: return "not a shape cache file of this layoutd's format"
        case .otherShaper(let saved, let running): return "written by \(saved), not by the running \(running)"
        case .fontsChanged: return "the fonts changed since it was written"
        case .damaged(let reason): return "damaged: \(reason)"
        }
    }
}

/// What `restoreShapeCacheFile` read back: words kept, and words left out (their font could not
/// be opened, or more words than the cache holds; the least recently used are left out).
public struct RestoredWords: Sendable, Equatable {
    public var kept: Int
    public var skipped: Int
}

/// The shape cache file: the shape cache written at a clean stop and read back at start, so
/// that a restarted daemon finds the words it had shaped (see `shapeCacheFile`).
///
/// Format (little-endian): the magic `LDWORDS1`; strings (u32 byte count, UTF-8) naming the
/// shaper (HarfBuzz's version and the caller's stamp) and the font set (`FontSystem`'s
/// fingerprint); the contexts (u32 count; each: face path, u32 face index, u32 axis count and
/// per axis a tag and an f64, f64 size, u32 feature count and per feature a tag and a u32,
/// u8 letter-spaced, i32 script, u8 right-to-left, language); the words, least recently used
/// first (u32 count; each: u32 context, u8 edge flags, u8 length and its UTF-16 units, u16
/// glyph count and per glyph u32 id, i32 cluster, f32 advance, x and y offset); and an FNV-1a
/// checksum (u64) of everything before it.
extension TextLayoutEngine {
    static let shapeCacheFileMagic: [UInt8] = Array("LDWORDS1".utf8)
    /// Longest file read back: 20 bytes a glyph, far past what 10 million words hold.
    public static let maxShapeCacheFileBytes = 1 << 30

    /// The shaper a shape cache file must come from: HarfBuzz's version and `stamp`.
    private static func shaperName(stamp: String) -> String {
        "HarfBuzz \(String(cString: hb_version_string())), \(stamp)"
    }

    /// The shape cache's words as a shape cache file's bytes, least recently used first.
    /// `stamp` names the caller's build (its version): a file is read back only by the same
    /// stamp, HarfBuzz and fonts. Reads each cache shard under its lock; never fails.
    public func shapeCacheFile(stamp: String) -> [UInt8] {
        let kept = shapeCache.wordsToSave()
        var out = ByteWriter()
        // (Sized for the words up front: one block, not one grown by doubling.)
        out.data.reserveCapacity(4096 + kept.contexts.count * 256 + kept.words.count * 10 + kept.texts.count * 2 + kept.glyphs.count * 20)
        out.bytes(Self.shapeCacheFileMagic)
        out.string(Self.shaperName(stamp: stamp))
        out.string(fonts.fingerprint)
        let numbers = kept.contexts.keys.sorted()
        var index: [Int: UInt32] = [:]
        out.u32(UInt32(numbers.count))
        for (i, number) in numbers.enumerated() {
            index[number] = UInt32(i)
            let c = kept.contexts[number]!
            out.string(c.face.path)
            out.u32(UInt32(truncatingIfNeeded: c.face.index))
            out.u32(UInt32(c.variations.count))
            for v in c.variations { out.string(v.tag); out.f64(v.value) }
            out.f64(c.size)
            out.u32(UInt32(c.features.count))
            for f in c.features { out.string(f.tag); out.u32(f.value) }
            out.u8(c.spaced ? 1 : 0)
            out.u32(UInt32(bitPattern: c.script))
            out.u8(c.rtl ? 1 : 0)
            out.string(c.language)
        }
        out.u32(UInt32(kept.words.count))
        for w in kept.words {
            out.u32(index[w.context]!)
            out.u8(w.flags)
            out.u8(UInt8(w.text.count))
            for u in kept.texts[w.text] { out.u16(u) }
            out.u16(UInt16(w.glyphs.count))
            for g in kept.glyphs[w.glyphs] {
                out.u32(g.id)
                out.u32(UInt32(bitPattern: g.cluster))
                out.u32(g.advance.bitPattern)
                out.u32(g.xOffset.bitPattern)
                out.u32(g.yOffset.bitPattern)
            }
        }
        out.u64(FNV1a.hash(out.data))
        return out.data
    }

    /// Reads a shape cache file (`shapeCacheFile`) back into the shape cache, before the
    /// first request: each word as if shaped now. Everything is checked first — format,
    /// checksum, that the same shaper (`stamp`, HarfBuzz) wrote it for the same fonts, and
    /// that every value is one a layoutd writes (font files the fonts list, glyph ids within
    /// their face, clusters within their word) — and on any failure nothing is kept. Words
    /// whose face cannot be opened, and the least recently used past the cache's capacity,
    /// are skipped.
    public func restoreShapeCacheFile(_ bytes: [UInt8], stamp: String) throws(ShapeCacheFileError) -> RestoredWords {
        guard bytes.count >= Self.shapeCacheFileMagic.count + 8,
              Array(bytes[0..<Self.shapeCacheFileMagic.count]) == Self.shapeCacheFileMagic else {
            throw .notAShapeCacheFile
        }
        let body = bytes[0..<(bytes.count - 8)]
        var tail = ByteReader(bytes[(bytes.count - 8)...])
        guard (try? tail.u64()) == FNV1a.hash(body) else { throw .damaged("its checksum does not match (cut short or changed)") }
        var input = ByteReader(body)
        input.skip(Self.shapeCacheFileMagic.count)
        do {
            let shaper = try input.string(), running = Self.shaperName(stamp: stamp)
            guard shaper == running else { throw ShapeCacheFileError.otherShaper(saved: shaper, running: running) }
            guard try input.string() == fonts.fingerprint else { throw ShapeCacheFileError.fontsChanged }
            let contexts = try readContexts(&input)
            let words = try readWords(&input, contexts: contexts)
            guard input.isAtEnd else { throw ShapeCacheFileError.damaged("\(input.remaining) bytes past its last word") }
            return keep(words, contexts: contexts)
        } catch let error as ShapeCacheFileError {
            throw error
        } catch {
            throw .damaged("\(error)")
        }
    }

    /// A file's shaping contexts, each with its face's glyph count (nil: the face cannot be
    /// opened, its words are skipped). No more than the cache numbers before it starts over,
    /// which would drop the words read back so far.
    private func readContexts(_ input: inout ByteReader) throws -> [(context: ShapeCache.Context, glyphCount: UInt32)?] {
        let contextCount = try input.count(atMost: ShapeCache.maxContexts)
        var contexts: [(context: ShapeCache.Context, glyphCount: UInt32)?] = []
        for _ in 0..<contextCount {
            let path = try input.string()
            guard fonts.fontFiles.contains(path) else {
                throw ShapeCacheFileError.damaged("it names a font file the fonts do not list")
            }
            let faceIndex = Int(try input.u32())
            var variations: [FontVariation] = []
            for _ in 0..<(try input.count(atMost: 64)) {
                variations.append(FontVariation(tag: try input.string(), value: try input.finite()))
            }
            let size = try input.finite()
            var features: [FontFeature] = []
            for _ in 0..<(try input.count(atMost: 256)) {
                features.append(FontFeature(tag: try input.string(), value: try input.u32()))
            }
            let spaced = try input.flag()
            let script = Int32(bitPattern: try input.u32())
            let rtl = try input.flag()
            let language = try input.string()
            let identity = FaceIdentity(path: path, index: faceIndex)
            let context = ShapeCache.Context(face: identity, variations: variations, size: size, features: features,
                                             spaced: spaced, script: script, rtl: rtl, language: language)
            contexts.append((try? fonts.face(identity)).map { (context, hb_face_get_glyph_count($0.face)) })
        }
        return contexts
    }

    /// A file's words, read and checked all before any is kept.
    private struct SavedWords {
        struct Word { var context: Int; var flags: UInt8; var text: Range<Int>; var glyphs: Range<Int> }
        var words: [Word] = []
        var texts: [UInt16] = []
        var glyphs: [ShapedGlyph] = []
    }

    private func readWords(_ input: inout ByteReader,
                           contexts: [(context: ShapeCache.Context, glyphCount: UInt32)?]) throws -> SavedWords {
        let wordCount = try input.count(atMost: 1 << 26)
        var saved = SavedWords()
        for _ in 0..<wordCount {
            let context = Int(try input.u32())
            guard context < contexts.count else { throw ShapeCacheFileError.damaged("a word names context \(context) of \(contexts.count)") }
            let flags = try input.u8()
            guard flags <= 3 else { throw ShapeCacheFileError.damaged("a word has edge flags \(flags)") }
            let length = Int(try input.u8())
            guard length >= 1, length <= ShapeCache.maxWordLength else { throw ShapeCacheFileError.damaged("a word is \(length) units long") }
            let textStart = saved.texts.count
            for _ in 0..<length { saved.texts.append(try input.u16()) }
            let glyphCount = Int(try input.u16())
            let glyphStart = saved.glyphs.count
            for _ in 0..<glyphCount {
                saved.glyphs.append(try readGlyph(&input, wordLength: length, faceGlyphs: contexts[context]?.glyphCount))
            }
            saved.words.append(SavedWords.Word(context: context, flags: flags, text: textStart..<saved.texts.count,
                                               glyphs: glyphStart..<saved.glyphs.count))
        }
        return saved
    }

    /// One glyph of a word `wordLength` units long, checked: its cluster within the word, its
    /// sizes finite and plausible, its id within its face (of `faceGlyphs`, when it opened).
    private func readGlyph(_ input: inout ByteReader, wordLength length: Int, faceGlyphs: UInt32?) throws -> ShapedGlyph {
        let g = ShapedGlyph(id: try input.u32(), cluster: Int32(bitPattern: try input.u32()),
                            advance: Float(bitPattern: try input.u32()), xOffset: Float(bitPattern: try input.u32()),
                            yOffset: Float(bitPattern: try input.u32()))
        guard g.cluster >= 0, Int(g.cluster) < length else {
            throw ShapeCacheFileError.damaged("a glyph's cluster \(g.cluster) lies outside its word of \(length) units")
        }
        guard g.advance.isFinite, g.xOffset.isFinite, g.yOffset.isFinite,
              abs(g.advance) < 1e6, abs(g.xOffset) < 1e6, abs(g.yOffset) < 1e6 else {
            throw ShapeCacheFileError.damaged("a glyph's advance or offset is not a size")
        }
        if let faceGlyphs, g.id >= faceGlyphs {
            throw ShapeCacheFileError.damaged("glyph \(g.id) is not in its face (of \(faceGlyphs))")
        }
        return g
    }

    /// Keeps the words read, the most recently used last (so they are the last evicted), at
    /// most the cache's capacity.
    private func keep(_ saved: SavedWords, contexts: [(context: ShapeCache.Context, glyphCount: UInt32)?]) -> RestoredWords {
        var numbers: [Int?] = Array(repeating: nil, count: contexts.count)
        let capacity = shapeCache.capacity
        var kept = 0, skipped = max(0, saved.words.count - capacity)
        saved.texts.withUnsafeBufferPointer { texts in
            for word in saved.words.dropFirst(skipped) {
                guard let context = contexts[word.context] else { skipped += 1; continue }
                let number = numbers[word.context] ?? shapeCache.contextNumber(context.context)
                numbers[word.context] = number
                shapeCache.restore(context: number, flags: word.flags, text: UnsafeBufferPointer(rebasing: texts[word.text]),
                                   glyphs: saved.glyphs[word.glyphs])
                kept += 1
            }
        }
        return RestoredWords(kept: kept, skipped: skipped)
    }
}

/// Little-endian values appended to a byte array.
private struct ByteWriter {
    var data: [UInt8] = []
    mutating func bytes(_ b: [UInt8]) { data += b }
    mutating func u8(_ v: UInt8) { data.append(v) }
    mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
    mutating func f64(_ v: Double) { u64(v.bitPattern) }
    mutating func string(_ s: String) { u32(UInt32(s.utf8.count)); data += s.utf8 }
}

/// Little-endian values read from a byte slice, each checked against its end.
private struct ByteReader {
    struct Unreadable: Error, CustomStringConvertible {
        var what: String
        var description: String { what }
    }
    private let bytes: ArraySlice<UInt8>
    private var at: Int
    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes; at = bytes.startIndex }

    var isAtEnd: Bool { at == bytes.endIndex }
    var remaining: Int { bytes.endIndex - at }
    mutating func skip(_ n: Int) { at = min(bytes.endIndex, at + n) }

    private mutating func take(_ n: Int) throws(Unreadable) -> ArraySlice<UInt8> {
        guard n <= bytes.endIndex - at else { throw Unreadable(what: "cut short") }
        defer { at += n }
        return bytes[at..<(at + n)]
    }
    /// The next little-endian `T`, read in place.
    private mutating func load<T: FixedWidthInteger>(_: T.Type) throws(Unreadable) -> T {
        let n = MemoryLayout<T>.size
        guard n <= bytes.endIndex - at else { throw Unreadable(what: "cut short") }
        let offset = at - bytes.startIndex
        at += n
        return T(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) })
    }
    mutating func u8() throws(Unreadable) -> UInt8 { try load(UInt8.self) }
    mutating func u16() throws(Unreadable) -> UInt16 { try load(UInt16.self) }
    mutating func u32() throws(Unreadable) -> UInt32 { try load(UInt32.self) }
    mutating func u64() throws(Unreadable) -> UInt64 { try load(UInt64.self) }
    mutating func flag() throws(Unreadable) -> Bool {
        let v = try u8()
        guard v <= 1 else { throw Unreadable(what: "a flag holds \(v)") }
        return v == 1
    }
    mutating func finite() throws(Unreadable) -> Double {
        let v = Double(bitPattern: try u64())
        guard v.isFinite else { throw Unreadable(what: "a number is not finite") }
        return v
    }
    /// A u32 count, at most `limit`.
    mutating func count(atMost limit: Int) throws(Unreadable) -> Int {
        let n = Int(try u32())
        guard n <= limit else { throw Unreadable(what: "a count of \(n) (at most \(limit))") }
        return n
    }
    mutating func string() throws(Unreadable) -> String {
        let n = try count(atMost: 4096)
        guard let s = String(validating: try take(n), as: UTF8.self) else { throw Unreadable(what: "a string is not UTF-8") }
        return s
    }
}
