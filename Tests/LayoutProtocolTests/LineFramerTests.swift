import Testing
import LayoutTransport

@Suite struct LineFramerTests {
    @Test func splitsLinesAcrossReads() {
        var f = LineFramer(maxLineLength: 100)
        f.append(Array("{\"a\":".utf8))
        #expect(f.nextFrame() == nil)
        f.append(Array("1}\n{}\r\n{".utf8))
        #expect(f.nextFrame() == .line(Array("{\"a\":1}".utf8)))
        #expect(f.nextFrame() == .line(Array("{}".utf8)))
        #expect(f.nextFrame() == nil)
        #expect(f.pendingCount == 1)
    }

    @Test func oversizedLineIsReportedOnceAndSkipped() {
        var f = LineFramer(maxLineLength: 10)
        f.append([UInt8](repeating: 0x41, count: 25))
        #expect(f.nextFrame() == .oversized)
        #expect(f.pendingCount == 0, "memory stays bounded while the long line goes on")
        f.append([UInt8](repeating: 0x41, count: 25))
        #expect(f.nextFrame() == nil)
        f.append(Array("AAA\nok\n".utf8))
        #expect(f.nextFrame() == .line(Array("ok".utf8)))
    }

    @Test func completeButOversizedLine() {
        var f = LineFramer(maxLineLength: 4)
        f.append(Array("123456\nabc\n".utf8))
        #expect(f.nextFrame() == .oversized)
        #expect(f.nextFrame() == .line(Array("abc".utf8)))
    }
}
