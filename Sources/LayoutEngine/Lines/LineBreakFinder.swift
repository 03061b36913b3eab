import CICUShim

/// ICU's line-break opportunities in one paragraph's text, found near each line's end
/// rather than all ahead of time. A line ending at or before `fit` ends at the last
/// opportunity up to `fit`; ICU scans for it over a short stretch around `fit`, from the
/// last place before it that is an opportunity by UAX #14 whatever surrounds it — after
/// spaces, between letters or digits of the classes only rule LB18 (break after spaces) then
/// decides; or between two ideographs, where only LB31 decides — else from the line's start
/// (an opportunity: the line before ended there), to the first such place after it. ICU's
/// scan starts afresh at each opportunity, looking only forward, and the stretch's ends are
/// opportunities whatever lies beyond them, so over the stretch it finds what it finds in
/// the whole text: a paragraph is scanned a word or so per line, not whole. Where the line
/// starts inside a run of class SA (Thai, Lao, Khmer, Myanmar: ICU's dictionary breaks such
/// a run whole, so a scan may not start inside it) and no certain place lies within reach
/// before the line's end, or where no opportunity lies in the stretch (a word wider than the
/// line), all opportunities are found once, from the paragraph's start (`all`), as
/// `BreakIteratorPool.boundaries(.line, ...)` finds them.
///
/// Takes one of the pool's iterators when ICU is first asked (a paragraph that fits on its
/// first line never asks: most short messages) and hands it back when released; it points
/// that iterator at the text (not copied), so it must not outlive the text (a
/// `ShapedParagraph`'s, valid while its layout runs). One user at a time.
final class LineBreakFinder {
    private var checkedOut: BreakIterator?
    private let pool: BreakIteratorPool
    private let locale: String
    private let text: UnsafeBufferPointer<UInt16>
    /// Every opportunity, once a line needed them all.
    private(set) var all: Boundaries?

    init(_ text: UnsafeBufferPointer<UInt16>, locale: String, pool: BreakIteratorPool) {
        self.pool = pool
        self.locale = locale
        self.text = text
    }

    deinit {
        guard let checkedOut else { return }
        // ICU's iterator keeps a pointer to the text; point it away before it goes back.
        _ = ldicu_brk_set_text(checkedOut.handle, nil, 0)
        pool.checkIn(checkedOut, .line, locale: locale)
    }

    /// The pool's iterator, taken on first use. Fails only when ICU cannot open one.
    private func iterator() throws -> BreakIterator {
        if let checkedOut { return checkedOut }
        let taken = try pool.checkOut(.line, locale: locale)
        checkedOut = taken
        return taken
    }

    /// Furthest a line's end is looked back from for a place to scan from, and ahead of for
    /// one to scan to.
    static let maxLook = 256

    /// Whether `i` (0 < `i` < the text's length) is a line-break opportunity by UAX #14
    /// whatever surrounds it: after spaces, between a letter or digit of the classes only
    /// LB18 (break after spaces) then decides (LB14-LB17 look past spaces at what precedes
    /// them, LB9 past marks at their base) and spaces at the text's start or such a letter
    /// or digit with its marks; or between two ideographs, where only LB31 decides.
    private func isCertainOpportunity(_ i: Int) -> Bool {
        let before = text[i - 1]
        if before == 0x20 {
            guard ldicu_line_kind(text[i]) & UInt32(LDICU_LINE_SPACED) != 0 else { return false }
            // (Looking back at most `maxLook` units: past that, not taken for certain, so that
            // a run of spaces or marks is not read again for every place after it.)
            let floor = i - Self.maxLook
            var j = i - 1
            while j >= 0, j > floor, text[j] == 0x20 { j -= 1 }
            if j < 0 { return true }
            while j >= 0, j > floor, ldicu_line_kind(text[j]) & UInt32(LDICU_LINE_MARK) != 0 { j -= 1 }
            return j >= 0 && j > floor && ldicu_line_kind(text[j]) & UInt32(LDICU_LINE_SPACED) != 0
        }
        let ideograph = UInt32(LDICU_LINE_IDEOGRAPH)
        return ldicu_line_kind(text[i]) & ideograph != 0 && ldicu_line_kind(before) & ideograph != 0
    }

    /// The last opportunity after `start` and at or before `fit` (`start` < `fit` ≤ the
    /// text's length; `start` an opportunity, as the line before ended there), or nil when
    /// none is known without every opportunity (`all`: then the caller walks those). Fails
    /// when ICU cannot take the text.
    func last(after start: Int, atOrBefore fit: Int) throws -> Int? {
        let n = text.count
        if fit >= n { return n }
        // The stretch to scan: from the last certain opportunity up to `fit` — or the line's
        // start, when that is later — to the first certain one after `fit` (else the text's
        // end). The line's start will not do when it may be one of the breaks ICU's
        // dictionary finds inside a run of class SA (Thai, Lao, Khmer, Myanmar): the
        // dictionary breaks a run whole, and a scan from inside it would see only part of
        // it. A certain place, after spaces or between ideographs, is never inside such a
        // run, so a stretch between two holds whole runs, broken as in the whole text.
        var from = -1
        var i = fit
        while i >= max(1, fit - Self.maxLook) {
            if isCertainOpportunity(i) { from = i; break }
            i -= 1
        }
        if from <= start {
            func mayBeComplex(_ u: UInt16) -> Bool {
                u & 0xF800 == 0xD800 || ldicu_line_kind(u) & UInt32(LDICU_LINE_COMPLEX) != 0
            }
            if start == 0 || !(mayBeComplex(text[start - 1]) && mayBeComplex(text[start])) {
                from = start
            } else if from < 0 {
                return nil
            }
        }
        if from == fit { return fit }
        // Letters and digits (AL, HL, NU), their marks and spaces only, from `from` through
        // the unit after `fit`: between those, UAX #14 breaks only after spaces before a
        // letter, a place `isCertainOpportunity` takes for certain (looking back less than
        // `maxLook`, within the stretch) — none lies after `from`, so `from` is the last.
        if from > start, fit - from < Self.maxLook, onlyLettersAndSpaces(from, fit + 1) { return from }
        var to = n
        i = fit + 1
        while i < min(n, fit + 1 + Self.maxLook) {
            if isCertainOpportunity(i) { to = i; break }
            i += 1
        }
        // From `from` to `to`, as if the text were only that: each step of ICU's scan starts
        // afresh at the opportunity before, looking only forward, and the stretch's ends are
        // opportunities whatever lies beyond them, so it finds there what it finds in the
        // whole text.
        let handle = try iterator().handle
        let status = ldicu_brk_set_text(handle, text.baseAddress! + from, Int32(to - from))
        guard status <= 0 else { throw EngineError.icuFailed(operation: "ubrk_setText", code: status) }
        var last = from
        while true {
            let b = ldicu_brk_next(handle)
            if b < 0 || from + Int(b) > fit { break }
            last = from + Int(b)
        }
        return last > start ? last : nil
    }

    /// Whether `text[a..<b]` holds only letters and digits of the classes AL, HL and NU,
    /// spaces, and marks after a letter, digit or mark.
    private func onlyLettersAndSpaces(_ a: Int, _ b: Int) -> Bool {
        let alphabetic = UInt32(LDICU_LINE_ALPHABETIC), mark = UInt32(LDICU_LINE_MARK)
        var afterSpace = true   // (a mark at `a` is not taken: its base lies before the stretch)
        for i in a..<b {
            let u = text[i]
            if u == 0x20 { afterSpace = true; continue }
            let kind = ldicu_line_kind(u)
            if kind & alphabetic != 0 || (kind & mark != 0 && !afterSpace) {
                afterSpace = false
                continue
            }
            return false
        }
        return true
    }

    /// Every opportunity of the text, found from its start once (and kept). Fails when ICU
    /// cannot take the text.
    func allOpportunities() throws -> Boundaries {
        if let all { return all }
        let found = try iterator().boundaries(.line, of: text)
        all = found
        return found
    }
}
