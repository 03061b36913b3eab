import Synchronization

/// The sizes of plain paragraphs measured lately (`TextLayoutEngine.measurePlainParagraph`),
/// by everything a size depends on: the text, the width, the style, the language and the
/// paragraph settings that reach a line's end or height. A chat backend measures the same
/// messages again and again (each list drawn, each bubble sized); a message found here costs
/// a lookup, not shaping and filling its lines. Bounded in entries and in the length of the
/// texts it keeps; thread-safe.
public final class MeasuredParagraphs: Sendable {
    /// Longest text kept, in UTF-16 units: messages, not documents (what an entry holds is
    /// bounded with the count).
    public static let maxTextLength = 256

    /// A size and what it was measured for, kept under the digest of the latter (`digest`):
    /// an entry is taken only when all of it matches the request, so two requests with one
    /// digest never share a size.
    struct Kept: Sendable {
        let text: [UInt16]
        let width: Double?
        let style: SpanStyle
        let language: String
        let direction: ParagraphDirection
        let wrap: WrapMode
        let hyphenation: Hyphenation
        let lineHeightMultiple: Double?
        let minimumLineHeight: Double?
        let maximumLineHeight: Double?
        let size: MeasuredSize

        init(_ request: LayoutRequest, size: MeasuredSize) {
            text = request.text
            width = request.width
            style = request.styles[0]
            language = request.language
            direction = request.paragraph.direction
            wrap = request.paragraph.wrap
            hyphenation = request.paragraph.hyphenation
            lineHeightMultiple = request.paragraph.lineHeightMultiple
            minimumLineHeight = request.paragraph.minimumLineHeight
            maximumLineHeight = request.paragraph.maximumLineHeight
            self.size = size
        }

        /// Whether this is the size of `request` (a request `measuresPlainly` takes: its other
        /// settings are the defaults that path requires, or do not change a size: alignment).
        func matches(_ request: LayoutRequest) -> Bool {
            let p = request.paragraph
            return width == request.width && direction == p.direction && wrap == p.wrap && hyphenation == p.hyphenation
                && lineHeightMultiple == p.lineHeightMultiple && minimumLineHeight == p.minimumLineHeight
                && maximumLineHeight == p.maximumLineHeight && language == request.language && style == request.styles[0]
                && text == request.text
        }
    }

    private let sizes: Mutex<BoundedCache<UInt64, Kept>>
    private let lookups = CacheLookupCounter()
    /// Entries kept at most (0: none kept, nothing looked up).
    public let capacity: Int

    public init(capacity: Int) {
        self.capacity = max(0, capacity)
        sizes = Mutex(BoundedCache(capacity: max(1, capacity)))
    }

    public var count: Int { sizes.withLock { $0.count } }
    public var lookupCounts: CacheLookups { lookups.snapshot }

    /// The digest under which `request`'s size is kept, or nil when it is not kept (the
    /// cache off, or the text too long).
    func digest(_ request: LayoutRequest) -> UInt64? {
        capacity > 0 && request.text.count <= Self.maxTextLength ? Self.digest(request) : nil
    }

    /// The size kept for `request` under `digest`, counted as a hit or a miss.
    func size(_ request: LayoutRequest, digest: UInt64) -> MeasuredSize? {
        let kept = sizes.withLock { $0[digest] }
        guard let kept, kept.matches(request) else {
            lookups.miss()
            return nil
        }
        lookups.hit()
        return kept.size
    }

    func keep(_ size: MeasuredSize, for request: LayoutRequest, digest: UInt64) {
        let kept = Kept(request, size: size)
        sizes.withLock { $0[digest] = kept }
    }

    /// FNV-1a over the text's units, then the width, the font, the language and the
    /// paragraph settings (features and variations are left to `Kept.matches`): made once
    /// per request, where hashing the text unit by unit with `Hasher` for each lookup would
    /// cost more than measuring a short message.
    static func digest(_ request: LayoutRequest) -> UInt64 {
        var h: UInt64 = 0xcbf29ce484222325
        @inline(__always) func mix(_ v: UInt64) { h = (h ^ v) &* 0x100000001b3 }
        request.text.withUnsafeBufferPointer { for u in $0 { mix(UInt64(u)) } }
        @inline(__always) func mix(_ d: Double?) { mix((d ?? -1).bitPattern) }
        @inline(__always) func mix(_ name: String) {
            for b in name.utf8 { mix(UInt64(b)) }
            mix(0x100)   // (names end: "ab" + "c" is not "a" + "bc")
        }
        let font = request.styles[0].font, style = request.paragraph
        mix(request.width)
        mix(font.size)
        mix(request.styles[0].letterSpacing)
        mix(request.styles[0].baselineOffset)
        mix(style.lineHeightMultiple)
        mix(style.minimumLineHeight)
        mix(style.maximumLineHeight)
        mix(UInt64(bitPattern: Int64(font.weight)))
        mix(font.family)
        mix(request.language)
        mix(font.style.rawValue)
        mix(style.direction.rawValue)
        mix(style.wrap.rawValue)
        mix(style.hyphenation.rawValue)
        return h
    }
}
