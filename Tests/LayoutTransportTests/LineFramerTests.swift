import Testing
import LayoutTransport

@Suite struct LineFramerTests {
    /// Random streams (long and short lines, CR LF, empty lines) fed in random pieces give
    /// each line once, as a whole-stream split does: a line over the cap as `.oversized`
    /// (once, whether its newline came yet or not), the others without `\r`.
    @Test func randomStreamsInRandomPiecesSplitAsAWhole() {
        var random = XorShift64(state: 0xF00D_CAFE_1234_ABCD)
        func pick(_ n: Int) -> Int { Int(random.next() >> 1) % n }
        for _ in 0..<2_000 {
            let cap = 1 + pick(40)
            var stream: [UInt8] = []
            for _ in 0..<pick(12) {
                let length = pick(3) == 0 ? pick(120) : pick(cap + 2)
                stream += (0..<length).map { _ in [0x41, 0x0D, 0x7B, 0xE4, 0x20][pick(5)] }
                stream.append(0x0A)
            }
            if pick(2) == 0 { stream += (0..<pick(80)).map { _ in UInt8(0x42) } }   // a last line with no newline
            var expected: [LineFramer.Frame] = []
            var start = 0
            for (i, b) in stream.enumerated() where b == 0x0A {
                var line = Array(stream[start..<i])
                start = i + 1
                if line.count > cap { expected.append(.oversized); continue }
                if line.last == 0x0D { line.removeLast() }
                expected.append(.line(line))
            }
            if stream.count - start > cap { expected.append(.oversized) }
            var framer = LineFramer(maxLineLength: cap)
            var got: [LineFramer.Frame] = []
            var at = 0
            while at < stream.count {
                let n = min(stream.count - at, 1 + pick(64))
                framer.append(Array(stream[at..<(at + n)]))
                at += n
                while let frame = framer.nextFrame() { got.append(frame) }
            }
            #expect(got == expected, "cap \(cap), stream \(stream)")
        }
    }

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
