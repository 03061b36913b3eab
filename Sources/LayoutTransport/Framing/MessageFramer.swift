/// How one connection's messages are framed, both ways, for its whole life.
public enum MessageFraming: Sendable, Equatable {
    /// One JSON-RPC message per line, ended by `\n` (the default).
    case lines
    /// The Language Server Protocol's base protocol: `Content-Length: N\r\n\r\n` and N bytes.
    case headers

    /// The bytes that go before a message's `body` on the wire.
    public func prefix(forBodyOf length: Int) -> [UInt8] {
        switch self {
        case .lines: []
        case .headers: Array("Content-Length: \(length)\r\n\r\n".utf8)
        }
    }

    /// The bytes that go after a message's body.
    public var suffix: [UInt8] {
        switch self {
        case .lines: [0x0A]
        case .headers: []
        }
    }
}

/// Cuts a connection's byte stream into messages in the framing its first bytes choose: a
/// stream that starts with an LSP header field (`Content-Length:` or `Content-Type:`, in
/// any case) is read with `HeaderFramer`, anything else with `LineFramer`. Until enough
/// bytes have come to tell (a prefix of one of those names), the bytes wait.
public struct MessageFramer {
    public enum Frame: Equatable {
        case message([UInt8])
        /// A message over the cap (`maxMessageLength`).
        case oversized
        /// A header the header framing cannot read, and why.
        case malformed(String)
    }

    /// The header field names that choose the header framing, lowercased.
    static let headerStarts: [[UInt8]] = [Array("content-length:".utf8), Array("content-type:".utf8)]

    public let maxMessageLength: Int
    /// The first bytes, while they do not tell the framing yet (at most 15 of them).
    private var undecided: [UInt8] = []
    /// One of these, once decided (kept apart, not in an enum's payload, so that appending
    /// mutates the framer's buffer in place).
    private var lines: LineFramer?
    private var headers: HeaderFramer?

    public init(maxMessageLength: Int) { self.maxMessageLength = maxMessageLength }

    /// A framer already decided for `framing` (the client side, which chooses).
    public init(maxMessageLength: Int, framing: MessageFraming) {
        self.maxMessageLength = maxMessageLength
        switch framing {
        case .lines: lines = LineFramer(maxLineLength: maxMessageLength)
        case .headers: headers = HeaderFramer(maxContentLength: maxMessageLength)
        }
    }

    /// The framing chosen, or nil while the first bytes do not tell yet.
    public var framing: MessageFraming? { lines != nil ? .lines : headers != nil ? .headers : nil }

    /// Bytes held for a message not yet complete.
    public var pendingCount: Int { lines?.pendingCount ?? headers?.pendingCount ?? undecided.count }

    /// Whether `nextFrame` would consume something now.
    public var hasMessage: Bool { lines?.hasLine ?? headers?.hasMessage ?? false }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if lines != nil { lines?.append(bytes) } else if headers != nil { headers?.append(bytes) } else { decide(undecided + bytes) }
    }

    public mutating func append(_ bytes: [UInt8]) {
        if lines != nil { lines?.append(bytes) } else if headers != nil { headers?.append(bytes) } else { decide(undecided + bytes) }
    }

    /// Chooses the framing once `bytes` (all the stream so far) tell which it is.
    private mutating func decide(_ bytes: [UInt8]) {
        let lowered = bytes.prefix(16).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        let matches = Self.headerStarts.filter { start in zip(lowered, start).allSatisfy { $0 == $1 } }
        if let header = matches.first, lowered.count >= header.count {
            headers = HeaderFramer(maxContentLength: maxMessageLength)
            headers?.append(bytes)
            undecided = []
        } else if matches.isEmpty {
            lines = LineFramer(maxLineLength: maxMessageLength)
            lines?.append(bytes)
            undecided = []
        } else {
            undecided = bytes
        }
    }

    /// The next complete frame, or nil when more bytes are needed.
    public mutating func nextFrame() -> Frame? {
        if lines != nil {
            switch lines?.nextFrame() {
            case nil: return nil
            case .line(let bytes): return .message(bytes)
            case .oversized: return .oversized
            }
        }
        switch headers?.nextFrame() {
        case nil: return nil
        case .message(let bytes): return .message(bytes)
        case .oversized: return .oversized
        case .malformed(let why): return .malformed(why)
        }
    }
}
