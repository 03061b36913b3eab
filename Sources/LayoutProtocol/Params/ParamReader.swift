/// Reads and validates the members of a params object, producing `RPCError.invalidParams`
/// that names the field (as a dotted path) on anything wrong.
public struct ParamReader {
    public let value: JSONValue
    public let path: String

    /// `params` must be an object (or absent, read as `{}`).
    public init(_ params: JSONValue?, path: String = "") throws(RPCError) {
        let params = params ?? .object([])
        guard params.isObject else {
            if path.isEmpty { throw RPCError(.invalidParams, "invalid params: expected an object, got \(params.typeName)") }
            throw .invalidParams(field: path, "must be an object, got \(params.typeName)")
        }
        self.value = params
        self.path = path
    }

    public func field(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The member, treating an explicit null as absent.
    public func member(_ key: String) -> JSONValue? {
        guard let v = value[key], !v.isNull else { return nil }
        return v
    }

    public func string(_ key: String, maxLength: Int = .max) throws(RPCError) -> String? {
        guard let v = member(key) else { return nil }
        guard let s = v.stringValue else { throw .invalidParams(field: field(key), "must be a string, got \(v.typeName)") }
        guard s.utf8.count <= maxLength else { throw .invalidParams(field: field(key), "is longer than \(maxLength) bytes") }
        return s
    }

    public func requiredString(_ key: String) throws(RPCError) -> String {
        guard let s = try string(key) else { throw .invalidParams(field: field(key), "is required (a string)") }
        return s
    }

    /// A required string kept as it came: UTF-16 code units for a `.utf16` value (a
    /// request's text as the server parses it), else the `String`.
    func requiredText(_ key: String) throws(RPCError) -> TextStorage {
        if case .utf16(let units)? = member(key) { return .utf16(units) }
        return .string(try requiredString(key))
    }

    /// A finite number in `range`; `what` (made only for the error) says what it must be.
    public func number(_ key: String, in range: ClosedRange<Double>, what: @autoclosure () -> String) throws(RPCError) -> Double? {
        guard let v = member(key) else { return nil }
        guard let d = v.doubleValue, d.isFinite, range.contains(d) else {
            throw .invalidParams(field: field(key), "must be \(what()), got \(describe(v))")
        }
        return d
    }

    /// An integer in `range`.
    public func integer(_ key: String, in range: ClosedRange<Int>) throws(RPCError) -> Int? {
        guard let v = member(key) else { return nil }
        guard let i = v.intValue, range.contains(i) else {
            throw .invalidParams(field: field(key), "must be an integer from \(range.lowerBound) to \(range.upperBound), got \(describe(v))")
        }
        return i
    }

    public func bool(_ key: String) throws(RPCError) -> Bool? {
        guard let v = member(key) else { return nil }
        guard let b = v.boolValue else { throw .invalidParams(field: field(key), "must be true or false, got \(v.typeName)") }
        return b
    }

    /// One of `choices`.
    public func choice(_ key: String, _ choices: [String]) throws(RPCError) -> String? {
        guard let s = try string(key) else { return nil }
        guard choices.contains(s) else {
            throw .invalidParams(field: field(key), "must be one of \(choices.map { "\"\($0)\"" }.joined(separator: ", ")), got \"\(s)\"")
        }
        return s
    }

    /// A nested object's reader.
    public func object(_ key: String) throws(RPCError) -> ParamReader? {
        guard let v = member(key) else { return nil }
        guard v.isObject else { throw .invalidParams(field: field(key), "must be an object, got \(v.typeName)") }
        return try ParamReader(v, path: field(key))
    }

    /// Fails, naming the first member whose key is not in `known` (for configuration files,
    /// where a misspelt option must not be silently ignored).
    public func rejectUnknownKeys(_ known: [String]) throws(RPCError) {
        guard case .object(let members) = value else { return }
        if let (key, _) = members.first(where: { !known.contains($0.0) }) {
            throw .invalidParams(field: field(key), "is not a known option (known here: \(known.joined(separator: ", ")))")
        }
    }

    private func describe(_ v: JSONValue) -> String {
        if case .number(let d) = v { return JSONWriter.string(.number(d)) }
        return v.typeName
    }
}
