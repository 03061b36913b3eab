import Testing
@testable import LayoutEngine

/// Greedy filling on synthetic advances: every UTF-16 unit 10 points wide (spaces too), so
/// each expected line can be worked out by hand.
@Suite struct LineBreakerTests {
    func breaker(_ text: String, breaks: [Int32]? = nil, mandatory: Set<Int32> = [], graphemes: [Int32]? = nil) -> LineFiller {
        let units = Array(text.utf16)
        var prefix = [0.0]
        for _ in units { prefix.append(prefix.last! + 10) }
        let offsets = breaks ?? defaultBreaks(units)
        return LineFiller(prefix: prefix, hangStart: hangingSpaceStarts(unitByUnit: units),
                           breaks: .all(Boundaries(offsets: offsets, mandatory: offsets.map { mandatory.contains($0) })),
                           graphemes: graphemes ?? (0...units.count).map(Int32.init))
    }

    /// Break after each run of spaces, as UAX #14 does for plain words.
    func defaultBreaks(_ units: [UInt16]) -> [Int32] {
        var result: [Int32] = [0]
        guard !units.isEmpty else { return result }
        for i in 1..<units.count where units[i - 1] == 0x20 && units[i] != 0x20 { result.append(Int32(i)) }
        result.append(Int32(units.count))
        return result
    }

    @Test func linesCanHaveTheirOwnWidths() throws {
        var b = breaker("aaa bbb ccc ddd")
        let measure = { [b] (s: Int, e: Int) in b.plainWidth(s, e) }
        #expect(try b.nextLine(from: 0, maxWidth: 75, measure: measure) == 8)    // "aaa bbb "
        #expect(try b.nextLine(from: 8, maxWidth: 35, measure: measure) == 12)   // "ccc "
        #expect(try b.nextLine(from: 12, maxWidth: 35, measure: measure) == 15)  // "ddd"
    }

    @Test func fillsGreedily() throws {
        // "aaa bbb ccc": words of 30, spaces of 10. Width 75 takes "aaa " (visible 30) and
        // "aaa bbb" would be 70 visible: fits. "aaa bbb ccc" is 110: does not.
        #expect(try breaker("aaa bbb ccc").lines(maxWidth: 75) == [0..<8, 8..<11])
        #expect(try breaker("aaa bbb ccc").lines(maxWidth: 69.9) == [0..<4, 4..<8, 8..<11])
        #expect(try breaker("aaa bbb ccc").lines(maxWidth: 110) == [0..<11])
    }

    @Test func trailingSpacesHang() throws {
        // "aaa     bbb": the five spaces do not count at the end of the first line.
        #expect(try breaker("aaa     bbb").lines(maxWidth: 30) == [0..<8, 8..<11])
        #expect(breaker("aaa     bbb").plainWidth(0, 8) == 30)
    }

    @Test func noWidthMeansOneLinePerMandatoryBreak() throws {
        #expect(try breaker("aaa bbb ccc").lines(maxWidth: nil) == [0..<11])
        let b = breaker("ab\u{2028}cd", breaks: [0, 3, 5], mandatory: [3])
        #expect(try b.lines(maxWidth: nil) == [0..<3, 3..<5])
        #expect(try b.lines(maxWidth: 1000) == [0..<3, 3..<5])
    }

    @Test func mandatoryBreakAtTheEndOpensAnEmptyLine() throws {
        let b = breaker("ab\u{2028}", breaks: [0, 3], mandatory: [3])
        #expect(try b.lines(maxWidth: 1000) == [0..<3, 3..<3])
    }

    @Test func overlongWordBreaksBetweenClusters() throws {
        // One 10-unit word at width 35: three clusters per line.
        #expect(try breaker("abcdefghij").lines(maxWidth: 35) == [0..<3, 3..<6, 6..<9, 9..<10])
        // Clusters of two units (think base + mark) are never split.
        let b = breaker("aabbccdd", graphemes: [0, 2, 4, 6, 8])
        #expect(try b.lines(maxWidth: 45) == [0..<4, 4..<8])
    }

    @Test func clusterWiderThanTheLineStandsAlone() throws {
        let b = breaker("aaaa bb", graphemes: [0, 4, 5, 6, 7])
        #expect(try b.lines(maxWidth: 15) == [0..<5, 5..<6, 6..<7])
        #expect(try breaker("abc").lines(maxWidth: 0) == [0..<1, 1..<2, 2..<3])
    }

    @Test func emptyParagraphHasOneEmptyLine() throws {
        #expect(try breaker("").lines(maxWidth: 100) == [0..<0])
    }
}

extension LineFiller {
    /// Every line at one width, as the engine asks for them, plus the empty line a mandatory
    /// break at the end opens.
    func lines(maxWidth: Double?) throws -> [Range<Int>] {
        guard count > 0 else { return [0..<0] }
        var filler = self
        var result: [Range<Int>] = []
        var start = 0
        while start < count {
            let end = try filler.nextLine(from: start, maxWidth: maxWidth) { self.plainWidth($0, $1) }
            result.append(start..<end)
            start = end
        }
        if case .all(let all) = breaks, all.mandatory.last == true { result.append(count..<count) }
        return result
    }
}
