import LayoutProtocol

/// One HTTP/1.1 response: status, header fields and body. Every response closes its
/// connection (`Connection: close`, RFC 9112 §9.6): the catalog's pages make few requests,
/// and one request per connection keeps the server's reading simple.
struct HTTPResponse {
    var status: Int
    var fields: [(String, String)]
    var body: [UInt8]

    init(status: Int, contentType: String, body: [UInt8], fields: [(String, String)] = []) {
        self.status = status
        self.fields = [("Content-Type", contentType)] + fields
        self.body = body
    }

    /// A JSON body (the RPC answers, and errors for the page to show).
    static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: JSONWriter.serialize(value))
    }

    /// A refusal, as a JSON-RPC-shaped error object the page can show like any other.
    static func failure(_ failure: HTTPFailure) -> HTTPResponse {
        let error: JSONValue = ["code": -32600, "message": .string(failure.message)]
        var response = json(["jsonrpc": "2.0", "id": nil, "error": error], status: failure.status)
        response.fields += failure.fields
        return response
    }

    /// The bytes to send; without the body for a HEAD request (RFC 9110 §9.3.2), which
    /// still gets the Content-Length the GET would have.
    func serialized(headOnly: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n"
        head += "Cache-Control: no-store\r\n"
        head += "X-Content-Type-Options: nosniff\r\n"
        // The pages load only their own files; SVG from `render` is drawn inline, its colour
        // glyphs as data: images.
        head += "Content-Security-Policy: default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'\r\n"
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8) + (headOnly ? [] : body)
    }

    /// The reason phrases of the statuses this server sends (RFC 9110 §15).
    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}
