/// Offset encodings a connection can choose with `initialize`.
public enum OffsetEncoding: String, Sendable, CaseIterable {
    case utf8 = "utf-8"
    case utf16 = "utf-16"
    case utf32 = "utf-32"
}

/// `initialize` params: `{offsetEncodings?: [..], client?: {..}, subscribe?: [..],
/// auth?: {token}}`.
public struct InitializeParams: Sendable {
    /// The client's preferred encodings, best first; the server takes the first it knows.
    public var offsetEncodings: [String]
    public var client: JSONValue?
    /// Notifications the client wants: `fontsChanged`.
    public var subscribe: [String] = []
    /// The shared secret a TCP listener asks for (`auth.tokenFile`); a Unix socket's peer
    /// needs none.
    public var authToken: String?

    public init(offsetEncodings: [String] = [], client: JSONValue? = nil, authToken: String? = nil) {
        self.offsetEncodings = offsetEncodings
        self.client = client
        self.authToken = authToken
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params)
        var encodings: [String] = []
        if let v = reader.member("offsetEncodings") {
            guard let list = v.arrayValue else {
                throw .invalidParams(field: "offsetEncodings", "must be an array of strings, got \(v.typeName)")
            }
            for (i, e) in list.enumerated() {
                guard let s = e.stringValue else {
                    throw .invalidParams(field: "offsetEncodings[\(i)]", "must be a string, got \(e.typeName)")
                }
                encodings.append(s)
            }
        }
        if let client = reader.member("client"), !client.isObject {
            throw .invalidParams(field: "client", "must be an object, got \(client.typeName)")
        }
        self.offsetEncodings = encodings
        self.client = reader.member("client")
        if let auth = try reader.object("auth") { authToken = try auth.string("token") }
        if let v = reader.member("subscribe") {
            guard let list = v.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw .invalidParams(field: "subscribe", "must be an array of notification names (\"fontsChanged\")")
            }
            subscribe = list.compactMap(\.stringValue)
            if let unknown = subscribe.first(where: { $0 != "fontsChanged" }) {
                throw .invalidParams(field: "subscribe", "names an unknown notification \"\(unknown)\"; known: \"fontsChanged\"")
            }
        }
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = []
        if !offsetEncodings.isEmpty { members.append(("offsetEncodings", .array(offsetEncodings.map { .string($0) }))) }
        if let client { members.append(("client", client)) }
        if !subscribe.isEmpty { members.append(("subscribe", .array(subscribe.map { .string($0) }))) }
        if let authToken { members.append(("auth", ["token": .string(authToken)])) }
        return .object(members)
    }
}
