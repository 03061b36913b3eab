import Dispatch
import LayoutProtocol
import LayoutTransport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The error line the loop writes for a connection it closes on a protocol limit.
func invalidRequestLine(_ message: String) -> String {
    String(decoding: JSONWriter.serialize(RPCResponse.failure(id: .null, error: RPCError(.invalidRequest, message))), as: UTF8.self)
}

/// Waits for `semaphore` at most 10 s (a test that would hang fails instead).
func waitFor(_ semaphore: DispatchSemaphore) -> Bool {
    semaphore.wait(timeout: .now() + 10) == .success
}

@Suite("The event loop over a socketpair")
struct EventLoopTests {
    /// Messages pipelined in one write, split across writes, or ended by CR LF are each
    /// handed over once, whole, and answered in order.
    @Test func framesAreAnsweredInOrder() throws {
        let loop = try LoopUnderTest(ToyHandler())
        defer { loop.stop() }
        let client = try loop.connect()
        try client.send("hello\nworld\r\npar")
        try client.send("tial\n")
        #expect(try client.nextLine() == "hello")
        #expect(try client.nextLine() == "world")
        #expect(try client.nextLine() == "partial")
    }

    /// A connection the handler refuses gets the handler's line, then the end; it never
    /// counts as opened or closed.
    @Test func aRefusedConnectionGetsItsLineAndTheEnd() throws {
        let handler = ToyHandler(refusing: true)
        let loop = try LoopUnderTest(handler)
        defer { loop.stop() }
        let client = try loop.connect()
        #expect(try client.nextLine() == #"{"refused":true}"#)
        #expect(try client.nextLine() == nil)
        #expect(handler.closes.isEmpty)
    }

    /// The end of a client's input: what it asked is answered, then the connection closes.
    @Test func halfClosedIsAnsweredThenClosed() throws {
        let handler = ToyHandler()
        let loop = try LoopUnderTest(handler)
        defer { loop.stop() }
        let (ours, theirs) = try socketPair()
        loop.group.serve(FileDescriptor(adopting: theirs))
        let client = TestClient(adopting: ours)
        try client.send("one\ntwo\n")
        shutdown(ours, Int32(SHUT_WR))
        #expect(try client.nextLine() == "one")
        #expect(try client.nextLine() == "two")
        #expect(try client.nextLine() == nil)
        #expect(waitFor(handler.closedSignal))
        #expect(handler.closes == [nil])
    }

    /// A message over `maxMessageBytes` is answered with an error and closes the connection.
    @Test func anOversizedMessageClosesTheConnection() throws {
        let loop = try LoopUnderTest(ToyHandler(maxMessageBytes: 16))
        defer { loop.stop() }
        let client = try loop.connect()
        try client.send("short\n" + String(repeating: "x", count: 40) + "\nnever\n")
        #expect(try client.nextLine() == "short")
        #expect(try client.nextLine() == invalidRequestLine("invalid request: message exceeds 16 bytes; the connection is closed"))
        #expect(try client.nextLine() == nil)
    }

    /// While a connection has `maxPending` requests running elsewhere, the loop reads no
    /// more of it; when they finish, it reads on and everything is answered.
    @Test func readingPausesAtThePendingLimit() throws {
        let handler = ToyHandler(answer: .hold, maxPending: 2)
        let loop = try LoopUnderTest(handler)
        defer { loop.stop() }
        let client = try loop.connect()
        try client.send("1\n2\n3\n4\n5\n")
        #expect(waitFor(handler.receivedSignal) && waitFor(handler.receivedSignal))
        // Room for the loop to take a third message if it (wrongly) read on.
        usleep(200_000)
        #expect(handler.receivedCount == 2)
        handler.release()
        for expected in ["1", "2", "3", "4", "5"] { #expect(try client.nextLine() == expected) }
    }
}

@Suite("The event loop's limits on slow and silent clients")
struct SlowClientTests {
    /// A client that sends requests and never reads: once its answers waiting pass
    /// `maxOutputBytes`, it is dropped, and the handler hears why.
    @Test func aClientThatNeverReadsIsDroppedAtTheOutputLimit() throws {
        let handler = ToyHandler(answer: .bytes(64 << 10), maxOutputBytes: 256 << 10, maxPending: 64)
        let loop = try LoopUnderTest(handler)
        defer { loop.stop() }
        let client = try loop.connect()
        try client.send(String(repeating: "give\n", count: 64))
        #expect(waitFor(handler.closedSignal))
        let reason = try #require(handler.closes.first ?? nil)
        #expect(reason.hasPrefix("its client does not read: "), "\(reason)")
        #expect(reason.hasSuffix("over the limit of 262144"), "\(reason)")
        client.close()
    }

    /// Output the client does not take for `sendTimeoutSeconds` drops the connection, though
    /// it is under the output limit.
    @Test func stalledOutputIsDroppedAfterTheSendTimeout() throws {
        let handler = ToyHandler(answer: .bytes(64 << 10), maxPending: 64, sendTimeoutSeconds: 0.3)
        let loop = try LoopUnderTest(handler)
        defer { loop.stop() }
        let client = try loop.connect()
        try client.send(String(repeating: "give\n", count: 16))
        #expect(waitFor(handler.closedSignal))
        #expect(handler.closes == ["its client has not read an answer for 0.3 s"])
        client.close()
    }

    /// A message left half-sent past `partialMessageSeconds` is answered with an error and
    /// the connection closes.
    @Test func aHalfSentMessageIsClosedAfterItsDeadline() throws {
        let handler = ToyHandler(partialMessageSeconds: 0.3)
        let loop = try LoopUnderTest(handler)
        defer { loop.stop() }
        let client = try loop.connect()
        try client.send(#"{"a":"#)
        #expect(try client.nextLine() == invalidRequestLine("invalid request: a message stayed incomplete for 0.3 s; the connection is closed"))
        #expect(try client.nextLine() == nil)
        #expect(handler.logs.contains("dropping a connection: a message stayed incomplete for 0.3 s"))
    }

    /// An idle connection (nothing half-sent) is not held to that deadline: it stays open
    /// past it and is answered.
    @Test func anIdleConnectionStaysOpenPastThePartialDeadline() throws {
        let handler = ToyHandler(partialMessageSeconds: 0.2)
        let loop = try LoopUnderTest(handler)
        defer { loop.stop() }
        let client = try loop.connect()
        try client.send("first\n")
        #expect(try client.nextLine() == "first")
        // Past the deadline, with sweeps (every 0.1 s) in between.
        usleep(500_000)
        try client.send("later\n")
        #expect(try client.nextLine() == "later")
        #expect(handler.closes.isEmpty)
    }
}

@Suite("The event loop in the LSP header framing")
struct HeaderFramingLoopTests {
    /// A connection that starts with `Content-Length:` is answered in that framing, each
    /// message once, whole, however its bytes are split.
    @Test func headerFramedMessagesAreAnsweredInKind() throws {
        let loop = try LoopUnderTest(ToyHandler())
        defer { loop.stop() }
        let client = try loop.connect(framing: .headers)
        try client.send("Content-Length: 5\r\n\r\nhelloContent-Le")
        try client.send("ngth: 7\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\ntwo\nrow")
        #expect(try client.nextLine() == "hello")
        #expect(try client.nextLine() == "two\nrow")
    }

    /// A bad header is answered with an error, in the header framing, and the connection
    /// closes.
    @Test func aBadHeaderClosesTheConnection() throws {
        let loop = try LoopUnderTest(ToyHandler())
        defer { loop.stop() }
        let client = try loop.connect(framing: .headers)
        try client.send("Content-Length: 2\r\nX-Extra: 1\r\n\r\n{}Content-Length: 2\r\n\r\n{}")
        #expect(try client.nextLine() == invalidRequestLine(
            "invalid request: bad message header: unknown header field \"X-Extra\"; only Content-Length and Content-Type are read; the connection is closed"))
        #expect(try client.nextLine() == nil)
    }

    /// A content length over `maxMessageBytes` gets the same error as an oversized line.
    @Test func anOversizedLengthClosesTheConnection() throws {
        let loop = try LoopUnderTest(ToyHandler(maxMessageBytes: 16))
        defer { loop.stop() }
        let client = try loop.connect(framing: .headers)
        try client.send("Content-Length: 5\r\n\r\nshortContent-Length: 40\r\n\r\n")
        #expect(try client.nextLine() == "short")
        #expect(try client.nextLine() == invalidRequestLine("invalid request: message exceeds 16 bytes; the connection is closed"))
        #expect(try client.nextLine() == nil)
    }

    /// A message whose content stops short is held to the partial-message deadline.
    @Test func aHalfSentBodyIsClosedAfterItsDeadline() throws {
        let loop = try LoopUnderTest(ToyHandler(partialMessageSeconds: 0.3))
        defer { loop.stop() }
        let client = try loop.connect(framing: .headers)
        try client.send("Content-Length: 10\r\n\r\n{\"a\":")
        #expect(try client.nextLine() == invalidRequestLine("invalid request: a message stayed incomplete for 0.3 s; the connection is closed"))
        #expect(try client.nextLine() == nil)
    }
}
