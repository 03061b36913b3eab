import Foundation
import LayoutProtocol
import LayoutTransport
import Testing

/// A raw connection to the daemon that writes bytes as given and reads messages in the LSP
/// header framing (`Content-Length: N\r\n\r\n` + N bytes).
final class HeaderFramedPeer {
    private var descriptor: FileDescriptor
    private var framer = MessageFramer(maxMessageLength: 1 << 30, framing: .headers)

    init(path: String) throws {
        descriptor = try UnixSocket.connect(path: path)
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor.rawValue, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func write(_ text: String) throws {
        try Array(text.utf8).withUnsafeBytes { try UnixSocket.writeAll(descriptor, $0) }
    }

    /// Sends `body` with the header an LSP client writes.
    func send(_ body: String, contentType: Bool = false) throws {
        let type = contentType ? "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" : ""
        try write("Content-Length: \(body.utf8.count)\r\n\(type)\r\n\(body)")
    }

    /// The next message's content parsed, or nil at end of stream.
    func receive() throws -> JSONValue? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            switch framer.nextFrame() {
            case .message(let bytes): return try JSONParser.parse(bytes)
            case .oversized, .malformed: throw PeerError.badFrame
            case nil: break
            }
            let n = try buffer.withUnsafeMutableBytes { try UnixSocket.read(descriptor, into: $0) }
            if n == 0 { return nil }
            framer.append(Array(buffer[0..<n]))
        }
    }

    enum PeerError: Error { case badFrame }
}

/// Both framings on the daemon's one socket: what an LSP client library sends is answered in
/// its framing, line clients beside it as ever.
@Suite(.serialized) struct FramingTests {
    /// A header-framed connection lays out (a body that spans several lines: the length, not a
    /// newline, ends it), hit-tests the retained layout, sends a batch, and gets every answer
    /// header-framed; a line connection at the same time is answered in lines.
    @Test func anLSPFramedClientIsAnsweredInItsFraming() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let peer = try HeaderFramedPeer(path: daemon.socketPath)
        try peer.send(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"offsetEncodings":["utf-32"]}}"#, contentType: true)
        let initialized = try #require(try peer.receive())
        #expect(initialized["result"]?["offsetEncoding"] == "utf-32")
        try peer.send("""
            {"jsonrpc": "2.0", "id": 2, "method": "layout",
             "params": {"text": "Grüße aus Köln, Ünal!", "width": 100, "retain": true}}
            """)
        let layout = try #require(try peer.receive()?["result"])
        let lines = try #require(layout["lines"]?.arrayValue)
        #expect(lines.map { [$0["start"], $0["end"]] } == [[0, 10], [10, 21]])
        let handle = try #require(layout["handle"])
        try peer.send(JSONWriter.string(.array([
            RPCRequest(id: .number(3), method: "hitTest", params: ["handle": handle, "x": 30, "y": 30]).json,
            RPCRequest(id: .number(4), method: "ping", params: nil).json,
        ])))
        let batch = try #require(try peer.receive()?.arrayValue)
        #expect(batch.map { $0["id"] } == [3, 4])
        #expect(batch.first?["result"]?["line"] == 1)
        #expect(batch.first?["result"]?["character"] == 13)

        let lineClient = try daemon.connect()
        #expect(try lineClient.call("ping", nil)["result"] != nil)
    }

    /// A header the framing cannot read gets one error, header-framed, then the connection
    /// closes.
    @Test func aBadHeaderIsAnsweredThenClosed() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let peer = try HeaderFramedPeer(path: daemon.socketPath)
        try peer.write("Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}")
        let reply = try #require(try peer.receive())
        #expect(reply["id"] == .null)
        #expect(reply["error"]?["code"] == -32600)
        #expect(reply["error"]?["message"] == "invalid request: bad message header: Content-Length is given twice; the connection is closed")
        #expect(try peer.receive() == nil)
    }

    /// A length over `maxMessageBytes` is refused as an oversized line is.
    @Test func anOversizedLengthIsRefused() throws {
        let daemon = try Daemon(limits: #"{"maxMessageBytes": 2048}"#)
        defer { daemon.stop() }
        let peer = try HeaderFramedPeer(path: daemon.socketPath)
        try peer.write("Content-Length: 2049\r\n\r\n")
        let reply = try #require(try peer.receive())
        #expect(reply["error"]?["message"] == "invalid request: message exceeds 2048 bytes; the connection is closed")
        #expect(try peer.receive() == nil)
    }
}
