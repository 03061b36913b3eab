import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// The catalog's HTTP side: one request per connection, answered from the asset folder
/// (`GET`, `HEAD`) or by the RPC bridge (`POST /rpc`). Only requests addressed to the
/// loopback host by name are answered, so a web page elsewhere cannot reach the daemon
/// through a DNS name rebound to 127.0.0.1, nor post to the bridge from another origin.
struct CatalogServer: Sendable {
    let assets: AssetFolder
    let bridge: RPCBridge
    let port: Int

    /// A header section longer than this is refused with 431.
    static let maxHeaderBytes = 16 << 10

    /// Reads the connection's request, answers it, and closes the connection.
    func serve(_ connection: consuming FileDescriptor) {
        let reader = HTTPRequestReader(maxHeaderBytes: Self.maxHeaderBytes, maxBodyBytes: RPCBridge.maxMessageBytes)
        var response: HTTPResponse
        var headOnly = false
        do {
            guard let request = try reader.read(from: connection) else { return }
            headOnly = request.method == "HEAD"
            response = try route(request)
        } catch {
            response = .failure(error)
        }
        let bytes = response.serialized(headOnly: headOnly)
        _ = try? bytes.withUnsafeBytes { raw in try UnixSocket.writeAll(connection, raw) }
        closeGracefully(connection)
    }

    func route(_ request: HTTPRequest) throws(HTTPFailure) -> HTTPResponse {
        try checkHost(request)
        switch (request.method, request.path) {
        case ("POST", "/rpc"):
            try checkOrigin(request)
            guard let type = try request.field("content-type"), type.lowercased().hasPrefix("application/json") else {
                throw HTTPFailure(415, "POST /rpc takes a JSON-RPC request as application/json")
            }
            return bridge.answer(request.body)
        case (_, "/rpc"):
            throw HTTPFailure(405, "/rpc takes POST", fields: [("Allow", "POST")])
        case ("GET", let path), ("HEAD", let path):
            return assets.response(for: path)
        case ("POST", _):
            throw HTTPFailure(405, "only /rpc takes POST", fields: [("Allow", "GET, HEAD")])
        default:
            // RFC 9110 §9.1: a method the server does not implement is answered 501.
            throw HTTPFailure(501, "the catalog answers GET, HEAD and POST, not \(request.method)")
        }
    }

    /// The Host field must name the loopback address (RFC 9112 §3.2 makes it required, once):
    /// a page of another site whose name was rebound to 127.0.0.1 sends its own name here.
    func checkHost(_ request: HTTPRequest) throws(HTTPFailure) {
        guard let host = try request.field("host"), !host.isEmpty else {
            throw HTTPFailure(400, "a request needs one Host header field")
        }
        guard Self.isLoopback(authority: host) else {
            throw HTTPFailure(403, "the catalog answers only requests to 127.0.0.1 or localhost, not \(host)")
        }
    }

    /// An Origin, when the browser sends one, must be the catalog's own: a page of another
    /// origin may send a POST without asking first (a "simple" request), and is refused here.
    func checkOrigin(_ request: HTTPRequest) throws(HTTPFailure) {
        guard let origin = try request.field("origin") else { return }
        let allowed = ["http://127.0.0.1:\(port)", "http://localhost:\(port)"]
        guard allowed.contains(origin.lowercased()) else {
            throw HTTPFailure(403, "POST /rpc is answered only for the catalog's own pages, not for \(origin)")
        }
    }

    /// `127.0.0.1` or `localhost`, with or without a port.
    static func isLoopback(authority: String) -> Bool {
        let lowered = authority.lowercased()
        var name = Substring(lowered)
        if let colon = lowered.lastIndex(of: ":") {
            let port = lowered[lowered.index(after: colon)...]
            guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber) else { return false }
            name = lowered[..<colon]
        }
        return name == "127.0.0.1" || name == "localhost"
    }

    /// Ends the sending side and reads what the peer still sends (briefly) before closing:
    /// closing with unread bytes would reset the connection, and the peer could lose the
    /// answer (RFC 9112 §9.6).
    private func closeGracefully(_ connection: borrowing FileDescriptor) {
        let raw = connection.rawValue
        _ = try? syscall("shutdown") { shutdown(raw, Int32(SHUT_WR)) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(raw, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var scratch = [UInt8](repeating: 0, count: 16384)
        let count = scratch.count
        for _ in 0..<64 {
            let n = scratch.withUnsafeMutableBytes { buffer in try? syscall("recv") { recv(raw, buffer.baseAddress, count, 0) } }
            guard let n, n > 0 else { break }
        }
    }
}
