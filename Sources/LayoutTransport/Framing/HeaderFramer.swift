/// Splits a byte stream framed as the Language Server Protocol's base protocol frames it: a
/// header part of `Name: value` fields, each ended by `\r\n`, then an empty line (`\r\n`),
/// then exactly `Content-Length` bytes of content.
///
/// LSP specification 3.17, "Base Protocol": the header fields are `Content-Length` (required,
/// the length of the content in bytes) and `Content-Type` (optional, default
/// `application/vscode-jsonrpc; charset=utf-8`; "utf8" is accepted as well for backwards
/// compatibility). Field names compare case-insensitively, as HTTP's do (RFC 7230 §3.2).
/// Anything else — an unknown field, a missing or repeated length, a charset other than
/// UTF-8, a header part longer than `maxHeaderBytes` — is `.malformed`, after which the
/// framer gives nothing more: a stream whose framing is lost cannot be resynchronised.
public struct HeaderFramer {
    public enum Frame: Equatable {
        /// One message's content.
        case message([UInt8])
        /// `Content-Length` is over the cap; nothing of the content was kept.
        case oversized
        /// The header part is not one this framing reads; why, in words.
        case malformed(String)
    }

    /// The longest header part read (its fields and the empty line); real clients send one
    /// or two short fields.
    public static var maxHeaderBytes: Int { 1024 }

    public let maxContentLength: Int
    private var buffer: [UInt8] = []
    private var head = 0
    /// The content length of the message being read, once its header part is complete.
    private var contentLength: Int?
    private var stopped = false

    public init(maxContentLength: Int) { self.maxContentLength = maxContentLength }

    /// Bytes held for a message not yet complete.
    public var pendingCount: Int { buffer.count - head }

    /// Whether `nextFrame` would give something now.
    public var hasMessage: Bool {
        guard !stopped else { return false }
        if let contentLength { return buffer.count - head >= contentLength }
        return headerEnd() != nil || buffer.count - head > Self.maxHeaderBytes
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !stopped else { return }
        compact()
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: [UInt8]) {
        guard !stopped else { return }
        compact()
        buffer.append(contentsOf: bytes)
    }

    private mutating func compact() {
        guard head > 0, head >= buffer.count / 2 || head >= 1 << 16 else { return }
        buffer.removeSubrange(0..<head)
        head = 0
    }

    /// The next complete frame, or nil when more bytes are needed (or after a frame that
    /// ends the stream: `.oversized`, `.malformed`).
    public mutating func nextFrame() -> Frame? {
        guard !stopped else { return nil }
        if contentLength == nil {
            guard let end = headerEnd() else {
                if buffer.count - head > Self.maxHeaderBytes {
                    return stop(.malformed("the header part is longer than \(Self.maxHeaderBytes) bytes"))
                }
                return nil
            }
            switch Self.parseHeader(buffer[head..<end]) {
            case .failure(let problem): return stop(.malformed(problem.reason))
            case .success(let length):
                if length > maxContentLength { return stop(.oversized) }
                contentLength = length
                head = end + 4
            }
        }
        guard let length = contentLength, buffer.count - head >= length else { return nil }
        let content = Array(buffer[head..<(head + length)])
        head += length
        contentLength = nil
        if head == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            head = 0
        }
        return .message(content)
    }

    private mutating func stop(_ frame: Frame) -> Frame {
        stopped = true
        buffer = []
        head = 0
        return frame
    }

    /// The index of the `\r\n\r\n` that ends the header part, looked for only within
    /// `maxHeaderBytes` (so a stream with none costs a bounded scan).
    private func headerEnd() -> Int? {
        let limit = min(buffer.count, head + Self.maxHeaderBytes + 4)
        var i = head
        while i + 3 < limit {
            if buffer[i] == 0x0D, buffer[i + 1] == 0x0A, buffer[i + 2] == 0x0D, buffer[i + 3] == 0x0A { return i }
            i += 1
        }
        return nil
    }
}

/// Why a header part was refused.
public struct HeaderProblem: Error, Equatable {
    public let reason: String
}

extension HeaderFramer {
    /// The content length a header part (its fields, without the final empty line) gives.
    static func parseHeader(_ bytes: ArraySlice<UInt8>) -> Result<Int, HeaderProblem> {
        var length: Int?
        var start = bytes.startIndex
        // Fields are at most as many as the header part has bytes (it is bounded).
        while start <= bytes.endIndex {
            let end = bytes[start...].firstIndex(of: 0x0D) ?? bytes.endIndex
            if end < bytes.endIndex, end + 1 >= bytes.endIndex || bytes[end + 1] != 0x0A {
                return .failure(HeaderProblem(reason: "a header field is not ended by \\r\\n"))
            }
            switch parseField(bytes[start..<end]) {
            case .failure(let problem): return .failure(problem)
            case .success(let value?):
                if length != nil { return .failure(HeaderProblem(reason: "Content-Length is given twice")) }
                length = value
            case .success(nil): break
            }
            start = end + 2
        }
        guard let length else { return .failure(HeaderProblem(reason: "the header part has no Content-Length")) }
        return .success(length)
    }

    /// One `Name: value` field: the length for `Content-Length`, nil for a `Content-Type` in
    /// UTF-8.
    static func parseField(_ field: ArraySlice<UInt8>) -> Result<Int?, HeaderProblem> {
        let text = String(decoding: field, as: UTF8.self)
        guard field.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }), let colon = text.firstIndex(of: ":") else {
            return .failure(HeaderProblem(reason: "\(quoted(text)) is not a header field (Name: value)"))
        }
        let name = text[..<colon].lowercased()
        let value = text[text.index(after: colon)...].trimmingSpaces()
        switch name {
        case "content-length":
            guard !value.isEmpty, value.count <= 18, value.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(value) else {
                return .failure(HeaderProblem(reason: "Content-Length must be a number of bytes, got \(quoted(value))"))
            }
            return .success(n)
        case "content-type":
            let charset = value.lowercased().split(separator: ";").dropFirst()
                .map { $0.trimmingSpaces() }.first { $0.hasPrefix("charset=") }
            if let charset, charset != "charset=utf-8", charset != "charset=utf8" {
                return .failure(HeaderProblem(reason: "only UTF-8 content is read, got Content-Type \(quoted(value))"))
            }
            return .success(nil)
        default:
            return .failure(HeaderProblem(reason: "unknown header field \(quoted(String(text[..<colon]))); only Content-Length and Content-Type are read"))
        }
    }

    private static func quoted(_ text: String) -> String {
        "\"" + (text.count > 64 ? String(text.prefix(64)) + "…" : text) + "\""
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (header field values, RFC 7230 §3.2.3).
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
