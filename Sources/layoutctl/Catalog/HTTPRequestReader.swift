import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// Reads one request from a connected socket: the header section (at most `maxHeaderBytes`),
/// then exactly the Content-Length bytes of its body (at most `maxBodyBytes`).
struct HTTPRequestReader {
    let maxHeaderBytes: Int
    let maxBodyBytes: Int

    /// The request, or nil when the peer closed (or went quiet) before sending any byte.
    func read(from connection: borrowing FileDescriptor) throws(HTTPFailure) -> HTTPRequest? {
        var buffer: [UInt8] = []
        var headerEnd: (content: Int, body: Int)?
        while headerEnd == nil {
            guard buffer.count <= maxHeaderBytes else {
                throw HTTPFailure(431, "the request's header section is over \(maxHeaderBytes) bytes")
            }
            guard try receive(from: connection, into: &buffer, idleIsEnd: buffer.isEmpty) else {
                if buffer.isEmpty { return nil }
                throw HTTPFailure(400, "the request ended inside its header section")
            }
            headerEnd = Self.endOfHeader(in: buffer)
        }
        guard let headerEnd else { return nil }
        guard headerEnd.content <= maxHeaderBytes else {
            throw HTTPFailure(431, "the request's header section is over \(maxHeaderBytes) bytes")
        }
        var request = try HTTPHeaderParser.parse(buffer[0..<headerEnd.content])
        let length = try bodyLength(of: request)
        var body = Array(buffer[headerEnd.body...])
        while body.count < length {
            guard try receive(from: connection, into: &body, idleIsEnd: false) else {
                throw HTTPFailure(400, "the request ended after \(body.count) of its \(length) body bytes")
            }
        }
        // Bytes past Content-Length would be a next request; this server answers one request
        // per connection (`Connection: close`), so they are left unread.
        request.body = Array(body.prefix(length))
        return request
    }

    /// The body's length from Content-Length (RFC 9112 §6.3). Transfer codings are refused
    /// with 411, as RFC 9110 §15.5.12 lets a server refuse a request without a length.
    private func bodyLength(of request: HTTPRequest) throws(HTTPFailure) -> Int {
        if try request.field("transfer-encoding") != nil {
            throw HTTPFailure(411, "send the body with a Content-Length, not a Transfer-Encoding")
        }
        guard let text = try request.field("content-length") else { return 0 }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw HTTPFailure(400, "Content-Length is not a number: \(text)")
        }
        guard text.utf8.count <= 12, let length = Int(text), length <= maxBodyBytes else {
            throw HTTPFailure(413, "the body is over \(maxBodyBytes) bytes, the protocol's message size limit")
        }
        return length
    }

    /// Where the header section ends: the index of its last line's terminator and the first
    /// byte of the body, or nil when the empty line has not come yet. Empty lines before the
    /// request line do not count (RFC 9112 §2.2).
    static func endOfHeader(in buffer: [UInt8]) -> (content: Int, body: Int)? {
        var start = 0
        while start < buffer.count, buffer[start] == 0x0D || buffer[start] == 0x0A { start += 1 }
        var i = start
        while i < buffer.count {
            if buffer[i] == 0x0A {
                // An LF followed by an empty line (LF, or CR LF).
                if i + 1 < buffer.count, buffer[i + 1] == 0x0A { return (i, i + 2) }
                if i + 2 < buffer.count, buffer[i + 1] == 0x0D, buffer[i + 2] == 0x0A { return (i, i + 3) }
            }
            i += 1
        }
        return nil
    }

    /// Appends what the socket gives to `buffer`; false at the end of the stream, or when
    /// the peer sent nothing within the receive timeout and `idleIsEnd`.
    private func receive(from connection: borrowing FileDescriptor, into buffer: inout [UInt8], idleIsEnd: Bool) throws(HTTPFailure) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n: Int
        do {
            n = try chunk.withUnsafeMutableBytes { raw in try UnixSocket.read(connection, into: raw) }
        } catch let error as Errno where error.wouldBlock {
            if idleIsEnd { return false }
            throw HTTPFailure(408, "the request stopped arriving")
        } catch {
            return false
        }
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }
}
