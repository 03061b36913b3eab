import Testing
@testable import LayoutProtocol

/// The parser's short cuts give what the long way gives: decimals read as `strtod` reads
/// them, and the protocol's own words as the strings they spell.
@Suite struct ParserShortCutTests {
    /// A decimal of `digits` random digits, a point at a random place or none, and a random
    /// sign (no leading zero before other integer digits, as JSON requires).
    static func randomDecimal(_ random: inout XorShift64, digits: Int) -> String {
        var text = random.next() & 1 == 0 ? "" : "-"
        let integerDigits = Int(random.next() % UInt64(digits)) + 1
        for i in 0..<digits {
            if i == integerDigits { text += "." }
            let first = i == 0 && integerDigits > 1
            text += String(first ? 1 + random.next() % 9 : random.next() % 10)
        }
        return text
    }

    /// Up to 15 digits with or without a point take the short cut; 16 and 17 digits, and
    /// exponents, do not. Every one reads as `Double(text)`, bit for bit (so `-0.0` stays
    /// negative zero).
    @Test func decimalsReadAsStrtodReadsThem() throws {
        var texts = ["0.1", "0.2", "0.3", "-0.0", "-0", "0.0", "280.001", "300.099", "9.99999999999999",
                     "0.00000000000001", "123456789012345", "1234567890123456", "12345678901234.5",
                     "1.00000000000000", "0.30000000000000004", "5e-324", "1.7976931348623157e308", "2.5E3"]
        var random = XorShift64(state: 0x5EED_0FDE_C14A_1500)
        for _ in 0..<40_000 {
            texts.append(Self.randomDecimal(&random, digits: Int(random.next() % 17) + 1))
        }
        for text in texts {
            let read = try JSONParser.parse(text).doubleValue
            #expect(read?.bitPattern == Double(text)?.bitPattern, "\(text) read as \(String(describing: read))")
        }
    }

    /// Each word is found by its bytes; a word one letter longer, shorter, in capitals or
    /// with a letter changed is not, and every one of them reads as the string it spells,
    /// as a key and as a value.
    @Test func protocolWordsReadAsTheirText() throws {
        #expect(Set(ProtocolWords.words).count == ProtocolWords.words.count)
        for word in ProtocolWords.words {
            #expect(word.utf8.count <= 16 && word.utf8.allSatisfy { $0 < 0x80 }, "\(word) would never be found")
            #expect(Array(word.utf8).withUnsafeBufferPointer(ProtocolWords.word) == word)
            let near = [word + "x", String(word.dropLast()), word.uppercased(), "é" + word.dropFirst()]
            for other in near where !ProtocolWords.words.contains(other) {
                #expect(Array(other.utf8).withUnsafeBufferPointer(ProtocolWords.word) == nil, "\(other)")
            }
            for text in [word] + near {
                #expect(try JSONParser.parse(#"{"\#(text)":"\#(text)"}"#) == .object([(text, .string(text))]))
            }
        }
    }
}
