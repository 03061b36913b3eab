import CICUShim

/// Extended grapheme cluster boundaries (UAX #29, the Unicode version ICU implements) found
/// in one pass over UTF-16 text, with each code point's Grapheme_Cluster_Break class read
/// from a table (ICU's property data, copied once for the BMP). Gives exactly what ICU's
/// character break iterator gives (the conformance and corpus tests compare them) without
/// an iterator per request: layout asks for these boundaries for every paragraph.
enum GraphemeBreaks {
    // ICU's UGraphemeClusterBreak values.
    static let other: UInt8 = 0, control: UInt8 = 1, cr: UInt8 = 2, extend: UInt8 = 3, l: UInt8 = 4,
               lf: UInt8 = 5, lv: UInt8 = 6, lvt: UInt8 = 7, t: UInt8 = 8, v: UInt8 = 9,
               spacingMark: UInt8 = 10, prepend: UInt8 = 11, regionalIndicator: UInt8 = 12, zwj: UInt8 = 17
    /// Flags of a class (see `ldicu_grapheme_class`): Extended_Pictographic; for the Indic
    /// conjunct rule of ICU's root rules, a virama, a linking consonant, an Extend with a
    /// combining class or ZWJ.
    static let pictographic: UInt16 = 0x80, virama: UInt16 = 0x100, linkingConsonant: UInt16 = 0x200,
               extendCccZwj: UInt16 = 0x400

    /// The class of every BMP code point (lone surrogates: Control), made on first use.
    static let bmpClasses: [UInt16] = (0..<0x10000).map { ldicu_grapheme_class(UInt32($0)) }

    /// Every boundary of `text`: 0, the end, and each offset between two clusters, ascending.
    /// The empty text has the one boundary 0.
    static func boundaries(_ text: UnsafeBufferPointer<UInt16>) -> [Int32] {
        let n = text.count
        guard n > 0, let units = text.baseAddress else { return [0] }
        return bmpClasses.withUnsafeBufferPointer { table in
            /// The class byte and width of the code point at `i`.
            func classAt(_ i: Int) -> (UInt16, Int) {
                let u = units[i]
                if u & 0xFC00 == 0xD800, i + 1 < n, units[i + 1] & 0xFC00 == 0xDC00 {
                    let scalar = 0x10000 + ((UInt32(u) - 0xD800) << 10) + (UInt32(units[i + 1]) - 0xDC00)
                    return (ldicu_grapheme_class(scalar), 2)
                }
                return (table[Int(u)], 1)
            }
            // Written in place: at most n + 1 boundaries (0, one per code unit after it, n).
            return [Int32](capacity: n + 1, blank: 0) { out, count in
                var found = 1
                out[0] = 0
                var (previous, width) = classAt(0)
                var i = width
                // GB11: 1 after Extended_Pictographic Extend*, 2 after that and a ZWJ.
                var emoji = previous & pictographic != 0 ? 1 : 0
                // GB12/13: regional indicators in a row up to and with the previous code point.
                var indicators = previous & 0x1F == UInt16(regionalIndicator) ? 1 : 0
                // ICU's Indic conjunct rule: 1 after a linking consonant and ExtCccZwj*, 2 after
                // that, a virama and ExtCccZwj* (a linking consonant then joins).
                var conjunct = previous & linkingConsonant != 0 ? 1 : 0
                while i < n {
                    if units[i] < 0xD800, table[Int(units[i])] == 0 {
                        // A plain letter or symbol (class Other, no flags): only a Prepend before
                        // it joins it (GB9b); it ends every sequence the rules track.
                        if previous & 0x1F != UInt16(prepend) { out[found] = Int32(i); found += 1 }
                        previous = 0
                        emoji = 0
                        indicators = 0
                        conjunct = 0
                        i += 1
                        continue
                    }
                    let (current, w) = classAt(i)
                    let p = UInt8(previous & 0x1F), c = UInt8(current & 0x1F)
                    let joins: Bool
                    if p == cr && c == lf { joins = true }                                       // GB3
                    else if p == control || p == cr || p == lf { joins = false }                 // GB4
                    else if c == control || c == cr || c == lf { joins = false }                 // GB5
                    else if p == l && (c == l || c == v || c == lv || c == lvt) { joins = true } // GB6
                    else if (p == lv || p == v) && (c == v || c == t) { joins = true }           // GB7
                    else if (p == lvt || p == t) && c == t { joins = true }                      // GB8
                    else if c == extend || c == zwj || c == spacingMark { joins = true }         // GB9, GB9a
                    else if p == prepend { joins = true }                                        // GB9b
                    else if p == zwj && emoji == 2 && current & pictographic != 0 { joins = true } // GB11
                    else if conjunct == 2 && current & linkingConsonant != 0 { joins = true }     // ICU: conjuncts
                    else if p == regionalIndicator && c == regionalIndicator { joins = indicators % 2 == 1 } // GB12, GB13
                    else { joins = false }                                                       // GB999
                    if !joins { out[found] = Int32(i); found += 1 }
                    if current & pictographic != 0 { emoji = 1 }
                    else if c == extend && emoji == 1 { emoji = 1 }
                    else if c == zwj && emoji == 1 { emoji = 2 }
                    else { emoji = 0 }
                    indicators = c == regionalIndicator ? indicators + 1 : 0
                    if current & linkingConsonant != 0 { conjunct = 1 }
                    else if conjunct != 0 && current & virama != 0 { conjunct = 2 }
                    else if conjunct != 0 && current & extendCccZwj != 0 { /* stays */ }
                    else { conjunct = 0 }
                    previous = current
                    i += w
                }
                out[found] = Int32(n)
                count = found + 1
            }
        }
    }
}

/// The grapheme cluster boundaries (UAX #29) nearest `offset` in `text`: the last at or
/// before it and the first at or after it. Found over the paragraph holding `offset`, its
/// separator included: clusters never cross a paragraph separator (GB4, GB5), but a CR and
/// the LF after it are one (GB3).
public func graphemeBounds(around offset: Int, in text: [UInt16]) -> (atOrBefore: Int, atOrAfter: Int) {
    let n = text.count, offset = min(max(0, offset), n)
    var lower = offset
    while lower > 0 {
        let u = text[lower - 1]
        if endsParagraph(u), !(u == 0x0D && lower < n && text[lower] == 0x0A) { break }
        lower -= 1
    }
    var upper = offset
    while upper < n, !endsParagraph(text[upper]) { upper += 1 }
    if upper < n { upper += text[upper] == 0x0D && upper + 1 < n && text[upper + 1] == 0x0A ? 2 : 1 }
    let boundaries = text[lower..<upper].withUnsafeBufferPointer { GraphemeBreaks.boundaries($0) }
    let after = boundaries.partitionPoint { lower + Int($0) < offset }
    let atOrAfter = after < boundaries.count ? lower + Int(boundaries[after]) : upper
    let atOrBefore = after < boundaries.count && atOrAfter == offset ? offset
        : lower + Int(boundaries[max(0, after - 1)])
    return (atOrBefore, atOrAfter)
}
