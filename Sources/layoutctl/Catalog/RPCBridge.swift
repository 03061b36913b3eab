import LayoutClient
import LayoutProtocol

/// `POST /rpc`: one JSON-RPC 2.0 request from a page, sent to the daemon through the
/// catalog's one `LayoutClient` (offsets in UTF-16, as JavaScript strings count), and the
/// daemon's answer under the page's own id. A JSON-RPC error comes back as the protocol's
/// error object with HTTP 200, as any answer; HTTP 502 means the daemon itself could not
/// be reached.
struct RPCBridge: Sendable {
    let client: LayoutClient

    /// The protocol's default `maxMessageBytes` (docs/protocol.md, Transport): a body the
    /// daemon would refuse is refused here before it is read.
    static let maxMessageBytes = 16 << 20

    func answer(_ body: [UInt8]) -> HTTPResponse {
        let request: JSONValue
        do { request = try JSONParser.parse(body) } catch {
            return .json(Self.errorAnswer(id: nil, code: -32700, "parse error: \(error)"))
        }
        let (call, refusal) = Self.readCall(request)
        guard let call else { return .json(refusal ?? Self.errorAnswer(id: nil, code: -32600, "invalid request")) }
        let client = self.client
        let outcome = waitFor { () async -> Result<JSONValue, LayoutClientError> in
            do throws(LayoutClientError) {
                // The connection's own initialize stands for the page's: the bridge keeps its
                // connection's offset encoding (UTF-16) whatever a page would choose.
                if call.method == "initialize" { return .success(try await client.connect().wireJSON) }
                return .success(try await client.request(call.method, call.params))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let result):
            return .json(["jsonrpc": "2.0", "id": call.id, "result": result])
        case .failure(let error):
            return Self.response(for: error, id: call.id)
        }
    }

    /// What the page asked: its id, method and params; or the error answer that refuses it.
    static func readCall(_ request: JSONValue) -> ((id: JSONValue, method: String, params: JSONValue)?, JSONValue?) {
        guard request.isObject else {
            return (nil, errorAnswer(id: nil, code: -32600, "invalid request: send one request object per POST (no batches)"))
        }
        guard let id = request["id"], id.isNull || id.stringValue != nil || id.doubleValue != nil else {
            return (nil, errorAnswer(id: nil, code: -32600, "invalid request: the bridge answers requests with an id, not notifications"))
        }
        guard request["jsonrpc"]?.stringValue == "2.0" else {
            return (nil, errorAnswer(id: id, code: -32600, "invalid request: `jsonrpc` must be \"2.0\""))
        }
        guard let method = request["method"]?.stringValue else {
            return (nil, errorAnswer(id: id, code: -32600, "invalid request: `method` must be a string"))
        }
        guard !method.hasPrefix("$/") else {
            return (nil, errorAnswer(id: id, code: -32600, "invalid request: \(method) would act on the bridge's own connection"))
        }
        let params = request["params"] ?? .object([])
        guard params.isObject || params.arrayValue != nil || params.isNull else {
            return (nil, errorAnswer(id: id, code: -32600, "invalid request: `params` must be an object or an array"))
        }
        return ((id, method, params.isNull ? .object([]) : params), nil)
    }

    static func errorAnswer(id: JSONValue?, code: Int, _ message: String, field: String? = nil) -> JSONValue {
        var error: [(String, JSONValue)] = [("code", .number(Double(code))), ("message", .string(message))]
        if let field { error.append(("data", ["field": .string(field)])) }
        return ["jsonrpc": "2.0", "id": id ?? .null, "error": .object(error)]
    }

    /// A LayoutClient error as the page sees it: the daemon's error object as it sent it
    /// (its code, message and field), or a 502 saying why the daemon could not be reached.
    static func response(for error: LayoutClientError, id: JSONValue) -> HTTPResponse {
        switch error {
        case .server(let code, let message, let field):
            return .json(errorAnswer(id: id, code: code, message, field: field))
        case .cancelled:
            return .json(errorAnswer(id: id, code: LayoutClientError.requestCancelled, "request cancelled"))
        case .noDaemon(let tried):
            return .json(errorAnswer(id: id, code: -32000, "no layoutd reachable; tried: \(tried.joined(separator: "; ")). Start one (scripts/run, or systemctl --user start layoutd.socket) and try again"), status: 502)
        case .refused, .connectionLost, .malformedAnswer:
            return .json(errorAnswer(id: id, code: -32000, error.description), status: 502)
        }
    }
}
