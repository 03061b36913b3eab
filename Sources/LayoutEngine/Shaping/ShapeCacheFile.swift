import CHarfBuzz

/// Why a kept-words file was not read back (`TextLayoutEngine.restoreKeptWords`). None of
/// its words is kept then: the cache starts empty, as without the file.
public enum KeptWordsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a kept-words file of this format (another file, or one of another format version).
    case notAKeptWordsFile
    /// Written by another HarfBuzz or another layoutd: words may shape otherwise now.
    case otherShaper(saved: String, running: String)
    /// The fonts (fontconfig file, or a face's file, size or date) changed since it was written.
    case fontsChanged
    /// Cut short, or its bytes changed after it was written (checksum), or it holds a value
    /// no layoutd writes.
    case damaged(String)

    public var description: String {
        switch self {
        case .notAKeptWordsFile: return "not a kept-words file of this layoutd's format"
        case .otherShaper(let saved, let running): return "written by \(saved), not by the running \(running)"
        case .fontsChanged: return "the fonts changed since it was written"
        case .damaged(let reason): return "damaged: \(reason)"
        }
    }
}

/// What `restoreKeptWords` read back: words kept, and words left out (their font could not
/// be opened, or more words than the cache holds; the least recently used are left out).
public struct RestoredWords: Sendable, Equatable {
    public var kept: Int
    public var skipped: Int
}

/// The kept-words file: the shape cache written at a clean stop and read back at start, so
/// that a restarted daemon finds the words it had shaped (see `keptWordsFile`).
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
    static let keptWordsMagic: [UInt8] = Array("LDWORDS1".utf8)
    /// Longest file read back: 20 bytes a glyph, far past what 10 million words hold.
    public static let maxKeptWordsFileBytes = 1 << 30

    /// The shaper a kept-words file must come from: HarfBuzz's version and `stamp`.
    private static func shaperName(stamp: String) -> String {
        "HarfBuzz \(String(cString: hb_version_string())), \(stamp)"
    }

    /// The shape cache's words as a kept-words file's bytes, least recently used first.
    /// `stamp` names the caller's build (its version): a file is read back only by the same
    /// stamp, HarfBuzz and fonts. Reads each cache shard under its lock; never fails.
    public func keptWordsFile(stamp: String) -> [UInt8] {
        let kept = shapeCache.keptWords()
        var out = ByteWriter()
        // (Sized for the words up front: one block, not one grown by doubling.)
        out.data.reserveCapacity(4096 + kept.contexts.count * 256 + kept.words.count * 10 + kept.texts.count * 2 + kept.glyphs.count * 20)
        out.bytes(Self.keptWordsMagic)
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

    /// Reads a kept-words file (`keptWordsFile`) back into the shape cache, before the
    /// first request: each word as if shaped now. Everything is checked first — format,
    /// checksum, that the same shaper (`stamp`, HarfBuzz) wrote it for the same fonts, and
    /// that every value is one a layoutd writes (font files the fonts list, glyph ids within
    /// their face, clusters within their word) — and on any failure nothing is kept. Words whose face cannot be opened,
    /// and the least recently used past the cache's capacity, are skipped.
    public func restoreKeptWords(_ bytes: [UInt8], stamp: String) throws(KeptWordsError) -> RestoredWords {
        guard bytes.count >= Self.keptWordsMagic.count + 8, Array(bytes[0..<Self.keptWordsMagic.count]) == Self.keptWordsMagic else {
            throw .notAKeptWordsFile
        }
        let body = bytes[0..<(bytes.count - 8)]
        var tail = ByteReader(bytes[(bytes.count - 8)...])
        guard (try? tail.u64()) == FNV1a.hash(body) else { throw .damaged("its checksum does not match (cut short or changed)") }
        var input = ByteReader(body)
        input.skip(Self.keptWordsMagic.count)
        do {
            let shaper = try input.string(), running = Self.shaperName(stamp: stamp)
            guard shaper == running else { throw KeptWordsError.otherShaper(saved: shaper, running: running) }
            guard try input.string() == fonts.fingerprint else { throw KeptWordsError.fontsChanged }
            // Contexts, each with its face opened (nil: it cannot be, its words are skipped).
            // (No more than the cache numbers before it starts over, which would drop the
            // words read back so far.)
            let contextCount = try input.count(atMost: ShapeCache.maxContexts)
            var contexts: [(context: ShapeCache.Context, glyphCount: UInt32)?] = []
            for _ in 0..<contextCount {
                let path = try input.string()
                guard fonts.fontFiles.contains(path) else {
                    throw KeptWordsError.damaged("it names a font file the fonts do not list")
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
                if let face = try? fonts.face(identity) {
                    contexts.append((context, hb_face_get_glyph_count(face.face)))
                } else {
                    contexts.append(nil)
                }
            }
            // Words: read and checked all before any is kept.
            struct Word { var context: Int; var flags: UInt8; var text: Range<Int>; var glyphs: Range<Int> }
            let wordCount = try input.count(atMost: 1 << 26)
            var words: [Word] = []
            var texts: [UInt16] = [], glyphs: [ShapedGlyph] = []
            for _ in 0..<wordCount {
                let context = Int(try input.u32())
                guard context < contexts.count else { throw KeptWordsError.damaged("a word names context \(context) of \(contexts.count)") }
                let flags = try input.u8()
                guard flags <= 3 else { throw KeptWordsError.damaged("a word has edge flags \(flags)") }
                let length = Int(try input.u8())
                guard length >= 1, length <= ShapeCache.maxWordLength else { throw KeptWordsError.damaged("a word is \(length) units long") }
                let textStart = texts.count
                for _ in 0..<length { texts.append(try input.u16()) }
                let glyphCount = Int(try input.u16())
                let glyphStart = glyphs.count
                for _ in 0..<glyphCount {
                    let g = ShapedGlyph(id: try input.u32(), cluster: Int32(bitPattern: try input.u32()),
                                        advance: Float(bitPattern: try input.u32()), xOffset: Float(bitPattern: try input.u32()),
                                        yOffset: Float(bitPattern: try input.u32()))
                    guard g.cluster >= 0, Int(g.cluster) < length else {
                        throw KeptWordsError.damaged("a glyph's cluster \(g.cluster) lies outside its word of \(length) units")
                    }
                    guard g.advance.isFinite, g.xOffset.isFinite, g.yOffset.isFinite,
                          abs(g.advance) < 1e6, abs(g.xOffset) < 1e6, abs(g.yOffset) < 1e6 else {
                        throw KeptWordsError.damaged("a glyph's advance or offset is not a size")
                    }
                    if let known = contexts[context], g.id >= known.glyphCount {
                        throw KeptWordsError.damaged("glyph \(g.id) is not in its face (of \(known.glyphCount))")
                    }
                    glyphs.append(g)
                }
                words.append(Word(context: context, flags: flags, text: textStart..<texts.count, glyphs: glyphStart..<glyphs.count))
            }
            guard input.isAtEnd else { throw KeptWordsError.damaged("\(input.remaining) bytes past its last word") }
            // Kept, the most recently used last (so they are the last evicted), at most the
            // cache's capacity.
            var numbers: [Int?] = Array(repeating: nil, count: contexts.count)
            let capacity = shapeCache.capacity
            var kept = 0, skipped = max(0, words.count - capacity)
            texts.withUnsafeBufferPointer { texts in
                for word in words.dropFirst(skipped) {
                    guard let context = contexts[word.context] else { skipped += 1; continue }
                    let number = numbers[word.context] ?? shapeCache.contextNumber(context.context)
                    numbers[word.context] = number
                    shapeCache.restore(context: number, flags: word.flags, text: UnsafeBufferPointer(rebasing: texts[word.text]),
                                       glyphs: glyphs[word.glyphs])
                    kept += 1
                }
            }
            return RestoredWords(kept: kept, skipped: skipped)
        } catch let error as KeptWordsError {
            throw error
        } catch {
            throw .damaged("\(error)")
        }
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
