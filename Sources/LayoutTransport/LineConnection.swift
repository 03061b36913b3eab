import LayoutProtocol

/// A connected stream socket speaking one JSON message per line: owns its descriptor.
/// Blocking; used by clients (layoutctl, tests) and by the server's connection threads.
public final class LineConnection {
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

    public var rawDescriptor: Int32 { fd.rawValue }

    /// Sends `bytes` followed by `\n`.
    public func send(line bytes: [UInt8]) throws {
        var message = bytes
        message.append(0x0A)
        try message.withUnsafeBytes { try UnixSocket.writeAll(fd.rawValue, $0) }
    }

    /// Sends one JSON value as a line.
    public func send(_ value: JSONValue) throws { try send(line: JSONWriter.serialize(value)) }

    /// The next frame, or nil at end of stream.
    public func receiveFrame() throws -> LineFramer.Frame? {
        while true {
            if let frame = framer.nextFrame() { return frame }
            let n = try readBuffer.withUnsafeMutableBytes { try UnixSocket.read(fd.rawValue, into: $0) }
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

    /// Closes now.
    public func close() { fd.close() }
}
