import LayoutProtocol
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A connected stream socket speaking one JSON message per line: owns its descriptor.
/// Blocking; used by clients (layoutctl, the integration tests).
/// Sends may come from any thread (a lock keeps whole lines together); receiving belongs to
/// one thread.
public final class LineConnection: @unchecked Sendable {
    private let sendLock = Mutex(())
    private var fd: FileDescriptor
    private var framer: LineFramer
    private var readBuffer = [UInt8](repeating: 0, count: 65536)

    public init(adopting fd: consuming FileDescriptor, maxLineLength: Int = 16 << 20) {
        self.fd = fd
        self.framer = LineFramer(maxLineLength: maxLineLength)
    }

    /// Connects to the daemon's socket.
    public convenience init(path: String, maxLineLength: Int = 1 << 30) throws(Errno) {
        self.init(adopting: try UnixSocket.connect(path: path), maxLineLength: maxLineLength)
    }

    /// Connects to `address`: a socket path, or a listener as a configuration names it
    /// (`unix:/path`, `tcp:HOST:PORT`).
    public convenience init(address: String, maxLineLength: Int = 1 << 30) throws(Errno) {
        guard address.hasPrefix("unix:") || address.hasPrefix("tcp:") else {
            try self.init(path: address, maxLineLength: maxLineLength)
            return
        }
        let parsed: ListenAddress
        do { parsed = try ListenAddress(parsing: address) } catch { throw Errno(EINVAL, error.description) }
        switch parsed {
        case .unix(let path): try self.init(path: path, maxLineLength: maxLineLength)
        case .tcp(let host, let port):
            self.init(adopting: try TCPSocket.connect(host: host, port: port), maxLineLength: maxLineLength)
        }
    }

    public var rawDescriptor: Int32 { fd.rawValue }

    /// How long a message may stay half-sent (bytes of it read, its newline not yet), and how
    /// long a write may wait for a peer that does not read; nil: forever.
    public func setDeadlines(partialLine: Double?, send: Double?) {
        partialLineDeadline = partialLine
        func timeout(_ seconds: Double?) -> timeval {
            guard let seconds else { return timeval(tv_sec: 0, tv_usec: 0) }
            return timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1e6))
        }
        var receive = timeout(partialLine)
        var sendTimeout = timeout(send)
        setsockopt(fd.rawValue, SOL_SOCKET, SO_RCVTIMEO, &receive, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd.rawValue, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
    }

    private var partialLineDeadline: Double?
    /// When the bytes now pending (a message not yet complete) began to arrive.
    private var partialSince: Double?

    /// A message stayed half-sent past the deadline.
    public struct PartialLineTimeout: Error, CustomStringConvertible {
        public var seconds: Double
        public var description: String { "a message stayed incomplete for \(seconds) s" }
    }

    /// Sends `bytes` followed by `\n`.
    public func send(line bytes: [UInt8]) throws {
        var message = bytes
        message.append(0x0A)
        try sendLock.withLock { _ in
            guard fd.rawValue >= 0 else { throw Errno(EBADF, "send on a closed connection") }
            try message.withUnsafeBytes { bytes in try UnixSocket.writeAll(fd, bytes) }
        }
    }

    /// Sends one JSON value as a line.
    public func send(_ value: JSONValue) throws { try send(line: JSONWriter.serialize(value)) }

    /// The next frame, or nil at end of stream.
    public func receiveFrame() throws -> LineFramer.Frame? {
        while true {
            if let frame = framer.nextFrame() { return frame }
            let n: Int
            do {
                n = try readBuffer.withUnsafeMutableBytes { buffer in try UnixSocket.read(fd, into: buffer) }
            } catch let error as Errno where error.wouldBlock {
                // The receive timeout: only a half-sent message is past its deadline; an idle
                // connection may wait as long as it likes.
                if framer.pendingCount > 0, let deadline = partialLineDeadline { throw PartialLineTimeout(seconds: deadline) }
                continue
            }
            // A message trickling in byte by byte is held to the same deadline.
            if let deadline = partialLineDeadline, framer.pendingCount > 0 {
                if let since = partialSince, MonotonicClock.now() - since > deadline { throw PartialLineTimeout(seconds: deadline) }
                if partialSince == nil { partialSince = MonotonicClock.now() }
            } else {
                partialSince = nil
            }
            if n == 0 { return nil }
            readBuffer.withUnsafeBytes { framer.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
    }

    /// The next line parsed as JSON, or nil at end of stream.
    public func receive() throws -> JSONValue? {
        while let frame = try receiveFrame() {
            if case .line(let bytes) = frame { return try JSONParser.parse(bytes) }
        }
        return nil
    }

    /// Shuts the socket down both ways: a read blocked on another thread returns the end of
    /// stream, so that thread can finish before `close()` frees the descriptor's number.
    public func shutdown() {
        sendLock.withLock { _ in
            guard fd.rawValue >= 0 else { return }
            _ = try? syscall("shutdown") { Glibc.shutdown(fd.rawValue, Int32(SHUT_RDWR)) }
        }
    }

    /// Closes now (after any send in progress).
    public func close() { sendLock.withLock { _ in fd.close() } }
}
