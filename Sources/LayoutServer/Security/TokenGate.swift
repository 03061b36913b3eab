import LayoutProtocol

/// What a TCP connection must send first: `initialize` (a single request, not a batch) with
/// `params.auth.token` equal to the configured token. Anything else ends the connection with
/// one `-32000` line (id null, as every refusal of a connection), so that a peer without the
/// token gets no method run, not even `ping`.
enum TokenGate {
    /// Nil when `line` is such an `initialize`; otherwise the error to answer with.
    static func refusal(of line: [UInt8], token: AuthToken?) -> RPCError? {
        let message = try? JSONParser.parse(line)
        guard case .string("initialize")? = message?["method"] else {
            return RPCError(.serverError, "this listener serves only clients that present its token: send initialize with params.auth.token first; the connection is closed")
        }
        guard case .string(let given)? = message?["params"]?["auth"]?["token"] else {
            return RPCError(.serverError, "initialize has no params.auth.token, which this listener requires; the connection is closed")
        }
        guard let token, token.matches(Array(given.utf8)) else {
            return RPCError(.serverError, "the token in params.auth.token is not this layoutd's (see its auth.tokenFile); the connection is closed")
        }
        return nil
    }
}
