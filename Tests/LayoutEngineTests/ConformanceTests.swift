import TestSupport
import Testing
@testable import LayoutEngine
#if canImport(Glibc)
import Glibc
#endif

/// Unicode's own break tests (Debian's unicode-data package) run through the engine's ICU
/// break iterators: every line of each file must give exactly the boundaries it marks.
@Suite struct ConformanceTests {
    struct Case { var text: [UInt16]; var expected: [Int]; var line: Int }

    /// Parses a UAX #29 / #14 test file: "÷ 0041 × 0308 ÷ …	# comment".
    static func cases(_ file: String) throws -> [Case] {
        guard let handle = fopen(file, "r") else {
            Issue.record("missing \(file): install the unicode-data package (scripts/setup)")
            return []
        }
        defer { fclose(handle) }
        var result: [Case] = []
        var buffer = [CChar](repeating: 0, count: 8192)
        var lineNumber = 0
        while fgets(&buffer, Int32(buffer.count), handle) != nil {
            lineNumber += 1
            let line = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let tokens = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
            guard !tokens.isEmpty else { continue }
            var text: [UInt16] = []
            var expected: [Int] = []
            for token in tokens {
                if token == "÷" { expected.append(text.count) }
                else if token == "×" { continue }
                else if let scalar = UInt32(token, radix: 16), let u = Unicode.Scalar(scalar) {
                    text.append(contentsOf: Array(String(Character(u)).utf16))
                } else if let scalar = UInt32(token, radix: 16), scalar >= 0xD800, scalar < 0xE000 {
                    text.append(UInt16(scalar))  // lone surrogates appear in some test lines
                }
            }
            result.append(Case(text: text, expected: expected, line: lineNumber))
        }
        return result
    }

    static let auxiliary = "/usr/share/unicode/auxiliary"

    /// `knownDeviations`: test-file lines where ICU's rules are documented to differ from the
    /// file (ICU tailors the default rules); each must still differ, so the list stays true.
    func check(_ kind: BoundaryKind, file: String, knownDeviations: Set<Int> = []) throws {
        let cases = try Self.cases("\(Self.auxiliary)/\(file)")
        #expect(cases.count > 100, "too few cases read from \(file)")
        var failures: [String] = []
        var deviations: Set<Int> = []
        for c in cases {
            // layoutd reports 0 as a boundary of every kind; UAX #14 marks the start "×" (LB2).
            let expected = kind == .line ? [0] + c.expected : c.expected
            let got = try sharedEngine.boundaries(kind, of: c.text)
            if got == expected { continue }
            if knownDeviations.contains(c.line) { deviations.insert(c.line); continue }
            failures.append("line \(c.line): expected \(expected), got \(got)")
        }
        let count = failures.count
        let rate = Double(cases.count - count - deviations.count) / Double(max(cases.count, 1))
        print("\(file): \(cases.count - count - deviations.count) of \(cases.count) cases pass (\(percent(rate))); ICU's known tailorings: lines \(deviations.sorted())")
        #expect(count == 0, "\(count) of \(cases.count) cases in \(file) differ: \(failures.prefix(5))")
        #expect(deviations == knownDeviations, "known deviations that now conform: \(knownDeviations.subtracting(deviations).sorted())")
    }

    @Test func graphemeBoundaries() throws { try check(.grapheme, file: "GraphemeBreakTest.txt") }
    /// ICU follows CLDR's root tailoring, where COLON is not MidLetter ("a:A" splits).
    @Test func wordBoundaries() throws {
        try check(.word, file: "WordBreakTest.txt",
                  knownDeviations: [1253, 1254, 1267, 1268, 1283, 1284, 1285, 1286, 1287, 1288, 1289, 1290, 1291, 1292, 1712])
    }
    @Test func sentenceBoundaries() throws { try check(.sentence, file: "SentenceBreakTest.txt") }
    /// ICU tailors number handling as CLDR does: HYPHEN-MINUS stays with a following
    /// character that can start a number ("-#", "-§"), and a FULL STOP or COMMA with a following digit
    /// (".2").
    @Test func lineBreakOpportunities() throws {
        try check(.line, file: "LineBreakTest.txt",
                  knownDeviations: [2265, 2267, 2421, 2423, 2425, 2427, 2429, 2431, 2873, 2875, 7477, 7576, 7577,
                                    7578, 7579, 7580, 7581, 7583, 7584, 7585, 7586, 7587])
    }
}
