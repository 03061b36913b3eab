import LayoutProtocol

/// How a method's requests are run relative to the rest of their connection's messages.
public enum MethodOrder: Sendable, Equatable {
    /// Answered as it is read, before the connection's next message: its effect (the
    /// connection's offset encoding, a released handle, a cancel) comes in the order sent.
    case immediate
    /// Run on a worker while the connection's later messages wait: `update`'s edits apply in
    /// the order sent, without holding up other connections.
    case ordered
    /// Run on a worker; answers may come out of order. `quick`: the work grows with the
    /// message alone (text given, or a point or offset looked up), so a short one may be
    /// answered without a worker.
    case concurrent(quick: Bool)
}

/// What a method runs with: the service (engine, configuration, stores) and the request's
/// session (offset encoding, cancel flag, deadline, working buffers).
struct MethodContext {
    let service: LayoutService
    let session: Session
}

/// One JSON-RPC method: its name, its params read once into a typed value, its typed result,
/// and how its requests are ordered. The registry (`MethodRegistry`) lists them all.
protocol Method {
    associatedtype Params
    associatedtype Result: WireResult
    static var name: String { get }
    static var order: MethodOrder { get }
    static func decode(_ params: JSONValue?) throws(RPCError) -> Params
    static func run(_ params: Params, in context: MethodContext) throws(RPCError) -> Result
    /// Whether an unknown `handle` is the error to answer even when other params are wrong
    /// too: the queries and `update` on a retained layout say first that it is gone, so that
    /// a client lays its text out again rather than mending params that were fine.
    static var reportsUnknownHandleFirst: Bool { get }
}

extension Method {
    static var reportsUnknownHandleFirst: Bool { false }
}

/// A method as the dispatcher holds it: the name, the order and the call, type-erased.
struct MethodEntry: Sendable {
    let name: String
    let order: MethodOrder
    /// Reads the params, runs the method, writes the result.
    let call: @Sendable (JSONValue?, MethodContext) throws(RPCError) -> JSONValue

    init<M: Method>(_ method: M.Type) {
        name = M.name
        order = M.order
        call = { params, context throws(RPCError) in try M.run(MethodEntry.decode(M.self, params, context), in: context).wireJSON }
    }

    /// `params` read by `method`; when they are refused and the method reports an unknown
    /// handle first, a `handle` that names no retained layout is the error instead (unless
    /// the handle itself is what was refused).
    private static func decode<M: Method>(_ method: M.Type, _ params: JSONValue?, _ context: MethodContext) throws(RPCError) -> M.Params {
        do {
            return try M.decode(params)
        } catch {
            if M.reportsUnknownHandleFirst, error.data?["field"] != "handle", let handle = params?["handle"]?.stringValue,
               context.service.store.get(handle) == nil {
                throw context.service.store.unknownHandle(handle)
            }
            throw error
        }
    }
}
