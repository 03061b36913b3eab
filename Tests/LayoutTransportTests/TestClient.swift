import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// The client end of a socketpair: writes raw bytes, reads messages in the framing it is
/// made for (lines by default); a read waits at most 10 s (then throws, so a test fails
/// instead of hanging).
final class TestClient {
    private var descriptor: FileDescriptor
    private var framer: MessageFramer

    init(adopting raw: Int32, framing: MessageFraming = .lines) {
        descriptor = FileDescriptor(adopting: raw)
        framer = MessageFramer(maxMessageLength: 1 << 30, framing: framing)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(raw, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) throws {
        try Array(text.utf8).withUnsafeBytes { try UnixSocket.writeAll(descriptor, $0) }
    }

    /// The next message (a line, or a header-framed message's content), or nil at end of
    /// stream.
    func nextLine() throws -> String? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            switch framer.nextFrame() {
            case .message(let bytes): return String(decoding: bytes, as: UTF8.self)
            case .oversized: return "(oversized)"
            case .malformed(let why): return "(malformed: \(why))"
            case nil: break
            }
            let n = try buffer.withUnsafeMutableBytes { try UnixSocket.read(descriptor, into: $0) }
            if n == 0 { return nil }
            framer.append(Array(buffer[0..<n]))
        }
    }

    func close() { descriptor.close() }
}
