/// JSON-RPC 2.0 error codes layoutd answers with.
public enum RPCErrorCode: Int, Sendable {
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case internalError = -32603
    /// A request cancelled with `$/cancelRequest` (as in LSP).
    case requestCancelled = -32800
    /// The server could not do what a valid request asked (no fonts, a limit reached).
    case serverError = -32000
    /// A retained layout's handle is unknown (never given, released, or evicted): lay out
    /// again with `retain: true`.
    case unknownHandle = -32001
}

/// A JSON-RPC error object: a code, a message a person can act on, and optional data
/// (`{"field": "…"}` names the offending parameter for invalid params).
public struct RPCError: Error, Equatable, Sendable {
    public var code: Int
    public var message: String
    public var data: JSONValue?

    public init(_ code: RPCErrorCode, _ message: String, data: JSONValue? = nil) {
        self.code = code.rawValue
        self.message = message
        self.data = data
    }

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// Invalid params naming the field (a dotted path such as `font.size`).
    public static func invalidParams(field: String, _ message: String) -> RPCError {
        RPCError(.invalidParams, "invalid params: `\(field)` \(message)", data: ["field": .string(field)])
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("code", .number(Double(code))), ("message", .string(message))]
        if let data { members.append(("data", data)) }
        return .object(members)
    }
}

/// A request id: a string, a number, or null.
public enum RPCId: Hashable, Sendable {
    case string(String)
    case number(Double)
    /// An integer id a Double cannot hold exactly, as its digits: answered as sent.
    case integer(String)
    case null

    /// The id `value` names: a string, a number, or nil when it is neither.
    public init?(_ value: JSONValue) {
        switch value {
        case .string(let s): self = .string(s)
        case .utf16(let units): self = .string(String(decoding: units, as: UTF16.self))
        case .number(let n): self = .number(n)
        case .serialized(let text) where value.typeName == "number": self = .integer(String(decoding: text, as: UTF8.self))
        default: return nil
        }
    }

    public var json: JSONValue {
        switch self {
        case .string(let s): .string(s)
        case .number(let n): .number(n)
        case .integer(let digits): .serialized(Array(digits.utf8))
        case .null: .null
        }
    }
}

/// A decoded JSON-RPC request; `id == nil` makes it a notification (no response).
public struct RPCRequest: Sendable {
    public var id: RPCId?
    public var method: String
    /// `params` as sent: an object, an array, or nil when absent.
    public var params: JSONValue?

    public init(id: RPCId?, method: String, params: JSONValue?) {
        self.id = id
        self.method = method
        self.params = params
    }

    /// Decodes one request object. On failure, returns the error and the id to answer with
    /// (the request's own when it could be read, else null).
    public static func decode(_ value: JSONValue) -> Result<RPCRequest, RequestDecodingError> {
        guard case .object = value else {
            return .failure(RequestDecodingError(error: RPCError(.invalidRequest, "invalid request: expected a JSON-RPC 2.0 request object, got \(value.typeName)"), id: .null))
        }
        var id: RPCId?
        switch value["id"] {
        case nil: id = nil
        case .null?: id = .null
        case let given? where RPCId(given) != nil: id = RPCId(given)
        case let other?:
            return .failure(RequestDecodingError(error: RPCError(.invalidRequest, "invalid request: `id` must be a string, a number or null, got \(other.typeName)"), id: .null))
        }
        guard value["jsonrpc"] == .string("2.0") else {
            return .failure(RequestDecodingError(error: RPCError(.invalidRequest, "invalid request: `jsonrpc` must be \"2.0\""), id: id ?? .null))
        }
        guard case .string(let method)? = value["method"] else {
            return .failure(RequestDecodingError(error: RPCError(.invalidRequest, "invalid request: `method` must be a string"), id: id ?? .null))
        }
        let params = value["params"]
        if let params, !(params.isObject || params.arrayValue != nil) {
            return .failure(RequestDecodingError(error: RPCError(.invalidRequest, "invalid request: `params` must be an object or an array"), id: id ?? .null))
        }
        return .success(RPCRequest(id: id, method: method, params: params))
    }

    /// The request as JSON, for clients.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("jsonrpc", "2.0")]
        if let id { members.append(("id", id.json)) }
        members.append(("method", .string(method)))
        if let params { members.append(("params", params)) }
        return .object(members)
    }
}

/// Why a message is not a valid request, and the id to answer with.
public struct RequestDecodingError: Error, Sendable {
    public var error: RPCError
    public var id: RPCId
}

/// Building responses.
public enum RPCResponse {
    public static func success(id: RPCId, result: JSONValue) -> JSONValue {
        ["jsonrpc": "2.0", "id": id.json, "result": result]
    }

    public static func failure(id: RPCId, error: RPCError) -> JSONValue {
        ["jsonrpc": "2.0", "id": id.json, "error": error.json]
    }
}
