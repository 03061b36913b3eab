import LayoutEngine
import LayoutProtocol

/// Answers kept under `limits.maxOutputBytes`, and the server's own loops held to the
/// request's deadline and cancel flag (the engine's loops ask `stopCheck` themselves).
extension LayoutService {
    /// The error for a result of `bytes` bytes (or at least that many) over the limit.
    func outputTooLarge(_ bytes: Int, atLeast: Bool = false) -> RPCError {
        RPCError(.serverError, "the result would be \(atLeast ? "at least " : "")\(bytes) bytes, over maxOutputBytes (\(configuration.maxOutputBytes)); ask for less detail or split the text",
                 data: ["bytes": .number(Double(bytes)), "maxOutputBytes": .number(Double(configuration.maxOutputBytes))])
    }

    /// Fails before a result is built when even its smallest form would be over the limit.
    func checkOutputEstimate(_ bytes: Int) throws(RPCError) {
        if bytes > configuration.maxOutputBytes { throw outputTooLarge(bytes, atLeast: true) }
    }

    /// The fewest bytes a line, a run and a glyph take in a result (keys, punctuation and
    /// one-digit numbers).
    static let minimumLineBytes = 90, minimumRunBytes = 60, minimumGlyphBytes = 40

    /// Fails when the request was cancelled or is past its time or CPU limit.
    func checkStop(_ check: (@Sendable () -> EngineError?)?) throws(RPCError) {
        if let stop = check?() { throw Self.rpcError(stop) }
    }

    /// A request's response as it goes on the wire: written once, and when it is longer than
    /// `maxOutputBytes`, replaced by the error saying so (the connection stays open).
    /// `budget`: what is left of the limit for a batch's responses so far. `sent`: whether
    /// the response itself went out (not the error).
    func bounded(_ response: JSONValue, id: RPCId, method: String, budget: inout Int) -> (response: JSONValue, sent: Bool) {
        let bytes = JSONWriter.serialize(response)
        guard bytes.count > budget else {
            budget -= bytes.count + 1
            return (.serialized(bytes), true)
        }
        Log.warning("a \(method) result of \(bytes.count) bytes was not sent: over maxOutputBytes (\(configuration.maxOutputBytes)); its client got an error")
        let error = JSONWriter.serialize(RPCResponse.failure(id: id, error: outputTooLarge(bytes.count)))
        budget -= error.count + 1
        return (.serialized(error), false)
    }
}
