import CICUShim
import Synchronization

/// Kinds of text boundary ICU finds.
public enum BoundaryKind: String, Sendable, CaseIterable {
    case grapheme, word, sentence, line

    var icuKind: Int32 {
        switch self {
        case .grapheme: Int32(LDICU_BREAK_CHARACTER)
        case .word: Int32(LDICU_BREAK_WORD)
        case .sentence: Int32(LDICU_BREAK_SENTENCE)
        case .line: Int32(LDICU_BREAK_LINE)
        }
    }
}

/// Boundaries of one text: offsets in UTF-16 units, 0 and the end included, ascending; for
/// line boundaries, `mandatory[i]` tells whether offset `i` is a forced break.
public struct Boundaries: Sendable {
    public var offsets: [Int32]
    public var mandatory: [Bool]
}

/// One ICU break iterator, closed in `deinit`. Not thread-safe: one user at a time, which
/// `BreakIteratorPool` guarantees.
final class BreakIterator: @unchecked Sendable {
    let handle: OpaquePointer

    init(kind: BoundaryKind, locale: String) throws {
        var status: Int32 = 0
        guard let handle = ldicu_brk_open(kind.icuKind, locale, &status) else {
            throw EngineError.icuFailed(operation: "ubrk_open(\(kind.rawValue), \"\(locale)\")", code: status)
        }
        self.handle = handle
    }

    deinit { ldicu_brk_close(handle) }
}

/// Reusable ICU break iterators per (kind, locale): opening one costs far more than pointing
/// it at new text. Bounded: at most `perKey` idle iterators are kept per key, and at most
/// `maxKeys` keys. Thread-safe.
public final class BreakIteratorPool: Sendable {
    private struct Key: Hashable { var kind: BoundaryKind; var locale: String }
    private let idle = Mutex<[Key: [BreakIterator]]>([:])
    private let perKey: Int
    private let maxKeys: Int

    public init(perKey: Int = 8, maxKeys: Int = 64) {
        self.perKey = perKey
        self.maxKeys = maxKeys
    }

    /// An idle iterator of `kind` for `locale`, or a new one; the caller has it alone until
    /// it hands it back (`checkIn`). Fails only when ICU cannot open one.
    func checkOut(_ kind: BoundaryKind, locale: String) throws -> BreakIterator {
        let key = Key(kind: kind, locale: locale)
        return try idle.withLock { $0[key]?.popLast() } ?? BreakIterator(kind: kind, locale: locale)
    }

    /// Takes back an iterator from `checkOut` (its text pointed away already), kept if the
    /// pool has room for it.
    func checkIn(_ iterator: BreakIterator, _ kind: BoundaryKind, locale: String) {
        let key = Key(kind: kind, locale: locale)
        idle.withLock { pool in
            if pool[key] == nil, pool.count >= maxKeys { pool.removeAll(keepingCapacity: true) }
            if pool[key, default: []].count < perKey { pool[key, default: []].append(iterator) }
        }
    }

    /// Every `kind` boundary of `text` in `locale` (ICU form, "" for root).
    /// Fails only when ICU cannot open an iterator.
    public func boundaries(_ kind: BoundaryKind, of text: UnsafeBufferPointer<UInt16>, locale: String) throws -> Boundaries {
        let iterator = try checkOut(kind, locale: locale)
        defer { checkIn(iterator, kind, locale: locale) }
        return try iterator.boundaries(kind, of: text)
    }
}

extension BreakIterator {
    /// Every `kind` boundary of `text` (this iterator's kind), found from its start; the
    /// iterator is pointed away from the text again before this returns. Fails when ICU
    /// cannot take the text.
    func boundaries(_ kind: BoundaryKind, of text: UnsafeBufferPointer<UInt16>) throws -> Boundaries {
        let length = Int32(text.count)
        if length == 0 { return Boundaries(offsets: [0], mandatory: [false]) }
        let status = ldicu_brk_set_text(handle, text.baseAddress, length)
        guard status <= 0 else { throw EngineError.icuFailed(operation: "ubrk_setText", code: status) }
        // ICU's iterator keeps a pointer to the text; point it away before it goes back.
        defer { _ = ldicu_brk_set_text(handle, nil, 0) }
        let capacity = text.count + 1
        var offsets = [Int32](filledWith: 0, count: capacity)
        var mandatory: [Bool] = []
        let n: Int32
        if kind == .line {
            var statuses = [Int32](filledWith: 0, count: capacity)
            n = offsets.withUnsafeMutableBufferPointer { o in
                statuses.withUnsafeMutableBufferPointer { s in
                    ldicu_brk_collect(handle, o.baseAddress, s.baseAddress, Int32(capacity))
                }
            }
            // UBRK_LINE_HARD: rule statuses 100–199 mark mandatory breaks.
            mandatory = statuses[0..<Int(n)].map { $0 >= 100 && $0 < 200 }
        } else {
            n = offsets.withUnsafeMutableBufferPointer { o in
                ldicu_brk_collect(handle, o.baseAddress, nil, Int32(capacity))
            }
            mandatory = [Bool](filledWith: false, count: Int(n))
        }
        offsets.removeSubrange(Int(n)...)
        return Boundaries(offsets: offsets, mandatory: mandatory)
    }
}

/// ICU's locale form of a BCP 47 tag ("zh-Hant-TW" → "zh_Hant_TW").
func icuLocale(_ language: String) -> String {
    guard language.utf8.contains(UInt8(ascii: "-")) else { return language }
    return String(language.map { $0 == "-" ? "_" : $0 })
}
