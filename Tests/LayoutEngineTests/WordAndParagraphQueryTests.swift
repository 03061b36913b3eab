import TestSupport
import Testing
@testable import LayoutEngine

@Suite struct WordAndParagraphQueryTests {
    @Test func theWordHoldingAnOffset() throws {
        let text = utf16("Hello, big world")
        #expect(try sharedEngine.wordRange(at: 0, of: text) == (0, 5))
        #expect(try sharedEngine.wordRange(at: 4, of: text) == (0, 5))
        #expect(try sharedEngine.wordRange(at: 5, of: text) == (5, 6))      // the comma
        #expect(try sharedEngine.wordRange(at: 8, of: text) == (7, 10))
        #expect(try sharedEngine.wordRange(at: 16, of: text) == (11, 16))   // the end: the word before it
        #expect(try sharedEngine.wordRange(at: 0, of: []) == (0, 0))
    }

    @Test func theParagraphAroundALine() {
        let text = utf16("one\r\ntwo three\u{2029}four")
        #expect(paragraphBounds(around: 5, 9, in: text) == (5, 15))     // "two " of "two three\u{2029}"
        #expect(paragraphBounds(around: 0, 5, in: text) == (0, 5))      // "one\r\n": CR LF as one
        #expect(paragraphBounds(around: 0, 3, in: text) == (0, 5))
        #expect(paragraphBounds(around: 15, 19, in: text) == (15, 19))
    }
}
