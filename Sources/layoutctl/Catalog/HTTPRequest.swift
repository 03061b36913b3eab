/// One HTTP/1.1 request as the catalog reads it (RFC 9112): the request line, the header
/// fields (names lowercased) and the body its Content-Length gave.
struct HTTPRequest {
    var method: String
    /// The request target in origin form (`/path?query`), as sent.
    var target: String
    var version: String
    var fields: [(name: String, value: String)]
    var body: [UInt8] = []

    /// The value of the field `name` (lowercase) when it appears once; nil when absent.
    /// A field repeated with different values is an error for the fields this server reads.
    func field(_ name: String) throws(HTTPFailure) -> String? {
        let values = fields.filter { $0.name == name }.map(\.value)
        guard let first = values.first else { return nil }
        guard values.allSatisfy({ $0 == first }) else { throw HTTPFailure(400, "the header field \(name) is repeated") }
        return first
    }

    /// The path part of the target, without its query.
    var path: String { String(target.prefix(while: { $0 != "?" })) }
}

/// A request the server refuses: the status to answer and why, in words for the page.
struct HTTPFailure: Error {
    var status: Int
    var message: String
    /// Header fields the answer needs (`Allow` for 405).
    var fields: [(String, String)] = []

    init(_ status: Int, _ message: String, fields: [(String, String)] = []) {
        self.status = status
        self.message = message
        self.fields = fields
    }
}

/// Parses the header section of a request: request line and field lines, each ended by CRLF
/// (a bare LF is accepted too, as RFC 9112 §2.2 allows).
enum HTTPHeaderParser {
    /// `bytes` is the header section without the empty line that ends it.
    static func parse(_ bytes: ArraySlice<UInt8>) throws(HTTPFailure) -> HTTPRequest {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            line.last == 0x0D ? line.dropLast() : line
        }
        // RFC 9112 §2.2: empty lines before the request line are ignored.
        while let first = lines.first, first.isEmpty { lines.removeFirst() }
        guard let requestLine = lines.first else { throw HTTPFailure(400, "no request line") }
        var request = try parseRequestLine(requestLine)
        for line in lines.dropFirst() {
            request.fields.append(try parseField(line))
        }
        return request
    }

    /// `method SP request-target SP HTTP-version` (RFC 9112 §3).
    private static func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPFailure) -> HTTPRequest {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isVisible) }) else {
            throw HTTPFailure(400, "a malformed request line")
        }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version.hasPrefix("HTTP/") else { throw HTTPFailure(400, "a malformed request line") }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            throw HTTPFailure(505, "only HTTP/1.1 is served, not \(version)")
        }
        let target = String(decoding: parts[1], as: UTF8.self)
        // Origin form only (RFC 9112 §3.2.1): the absolute form is for proxies.
        guard target.hasPrefix("/") else { throw HTTPFailure(400, "the request target must be a path") }
        return HTTPRequest(method: String(decoding: parts[0], as: UTF8.self), target: target, version: version, fields: [])
    }

    /// `field-name ":" OWS field-value OWS` (RFC 9112 §5). Whitespace before the colon and
    /// obsolete line folding are rejected with 400, as §5.1 and §5.2 say a server may.
    private static func parseField(_ line: ArraySlice<UInt8>) throws(HTTPFailure) -> (name: String, value: String) {
        guard let colon = line.firstIndex(of: 0x3A) else { throw HTTPFailure(400, "a header line without a colon") }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenCharacter) else { throw HTTPFailure(400, "a malformed header field name") }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        guard value.allSatisfy({ $0 == 0x09 || $0 >= 0x20 && $0 != 0x7F }) else {
            throw HTTPFailure(400, "a control character in a header field")
        }
        return (String(decoding: name, as: UTF8.self).lowercased(), String(decoding: value, as: UTF8.self))
    }

    private static func isVisible(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }

    /// RFC 9110 §5.6.2's tchar.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
