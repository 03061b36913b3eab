import Testing
import LayoutTransport

/// The LSP base protocol's framing (`Content-Length: N\r\n\r\n` + N bytes), and the choice
/// between it and lines from a connection's first bytes.
@Suite struct HeaderFramerTests {
    static func framed(_ body: String, extra: String = "") -> String {
        "Content-Length: \(body.utf8.count)\r\n\(extra)\r\n\(body)"
    }

    /// Messages pipelined and cut into random pieces come out whole, each once, newlines
    /// inside a body kept (the length, not a newline, ends a message).
    @Test func randomPiecesGiveEachMessageWhole() {
        var random = XorShift64(state: 0x5EED_0F_4EAD_E125)
        func pick(_ n: Int) -> Int { Int(random.next() >> 1) % n }
        for _ in 0..<1_000 {
            let bodies = (0..<(1 + pick(6))).map { _ in
                String((0..<pick(90)).map { _ in ["a", "{", "\n", "\r", "ü", " "][pick(6)] })
            }
            let stream = Array(bodies.map { Self.framed($0, extra: pick(2) == 0 ? "content-type: application/vscode-jsonrpc; charset=utf8\r\n" : "") }
                .joined().utf8)
            var framer = MessageFramer(maxMessageLength: 1 << 16)
            var got: [MessageFramer.Frame] = []
            var at = 0
            while at < stream.count {
                let n = min(stream.count - at, 1 + pick(40))
                framer.append(Array(stream[at..<(at + n)]))
                at += n
                while let frame = framer.nextFrame() { got.append(frame) }
            }
            #expect(framer.framing == .headers)
            #expect(got == bodies.map { .message(Array($0.utf8)) })
            #expect(framer.pendingCount == 0)
        }
    }

    /// The first bytes choose: a header field name in any case means headers; JSON, white
    /// space or anything else means lines; a prefix of a field name waits for more.
    @Test func firstBytesChooseTheFraming() {
        for (start, framing) in [("CONTENT-LENGTH: 2\r\n\r\n{}", MessageFraming.headers),
                                 ("Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", .headers),
                                 ("{\"jsonrpc\":\"2.0\"}\n", .lines), ("  {}\n", .lines), ("Contents\n", .lines)] {
            var framer = MessageFramer(maxMessageLength: 100)
            framer.append(Array(start.utf8))
            #expect(framer.framing == framing, "\(start)")
            #expect(framer.nextFrame() != nil, "\(start)")
        }
        var waiting = MessageFramer(maxMessageLength: 100)
        waiting.append(Array("Conte".utf8))
        #expect(waiting.framing == nil)
        #expect(waiting.pendingCount == 5, "held bytes count for the partial-message deadline")
        waiting.append(Array("nt-Length: 1\r\n\r\n7".utf8))
        #expect(waiting.framing == .headers)
        #expect(waiting.nextFrame() == .message([0x37]))
    }

    /// A content length over the cap is `.oversized` as soon as the header is read, before
    /// the content comes; nothing more is framed after it.
    @Test func anOversizedLengthIsRefusedAtTheHeader() {
        var framer = MessageFramer(maxMessageLength: 10)
        framer.append(Array("Content-Length: 11\r\n\r\n".utf8))
        #expect(framer.nextFrame() == .oversized)
        framer.append(Array("0123456789A".utf8))
        #expect(framer.nextFrame() == nil)
        #expect(framer.pendingCount == 0)
    }

    /// Each kind of bad header is `.malformed` with its reason, and ends the framing.
    @Test(arguments: [
        ("Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", "Content-Length is given twice"),
        ("Content-Type: application/json\r\n\r\n{}", "the header part has no Content-Length"),
        ("Content-Length: -2\r\n\r\n{}", "Content-Length must be a number of bytes, got \"-2\""),
        ("Content-Length: 99999999999999999999\r\n\r\n", "Content-Length must be a number of bytes, got \"99999999999999999999\""),
        ("Content-Length: 2\r\nX-Trace: 1\r\n\r\n{}", "unknown header field \"X-Trace\"; only Content-Length and Content-Type are read"),
        ("Content-Length: 2\r\nContent-Type: text/plain; charset=latin1\r\n\r\n{}", "only UTF-8 content is read, got Content-Type \"text/plain; charset=latin1\""),
        ("Content-Length: 2\rX\r\n\r\n{}", "a header field is not ended by \\r\\n"),
        ("Content-Length: 2\r\nno colon\r\n\r\n{}", "\"no colon\" is not a header field (Name: value)"),
    ])
    func badHeadersAreMalformed(stream: String, reason: String) {
        var framer = MessageFramer(maxMessageLength: 1 << 20)
        framer.append(Array(stream.utf8))
        #expect(framer.nextFrame() == .malformed(reason))
        framer.append(Array(Self.framed("{}").utf8))
        #expect(framer.nextFrame() == nil)
    }

    /// A header part that never ends is refused once it passes its bound, so memory stays
    /// bounded by it, not by the message cap.
    @Test func aHeaderWithoutEndIsBounded() {
        var framer = MessageFramer(maxMessageLength: 1 << 20)
        framer.append(Array(("Content-Length: 2\r\nContent-Type: " + String(repeating: "x", count: 600)).utf8))
        #expect(framer.nextFrame() == nil)
        #expect(!framer.hasMessage)
        framer.append(Array(String(repeating: "x", count: 600).utf8))
        #expect(framer.hasMessage)
        #expect(framer.nextFrame() == .malformed("the header part is longer than \(HeaderFramer.maxHeaderBytes) bytes"))
        #expect(framer.pendingCount == 0)
    }

    /// The framing's wire form for answers.
    @Test func answersAreFramedAsTheRequests() {
        #expect(MessageFraming.headers.prefix(forBodyOf: 12) == Array("Content-Length: 12\r\n\r\n".utf8))
        #expect(MessageFraming.headers.suffix.isEmpty)
        #expect(MessageFraming.lines.prefix(forBodyOf: 12).isEmpty)
        #expect(MessageFraming.lines.suffix == [0x0A])
    }
}
