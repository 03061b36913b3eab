import LayoutProtocol

/// `release`: lets go of a retained layout. Immediate: a query sent after it finds the
/// handle gone.
enum ReleaseMethod: Method {
    static let name = "release"
    static let order = MethodOrder.immediate

    static func decode(_ params: JSONValue?) throws(RPCError) -> ReleaseParams { try ReleaseParams(json: params) }

    static func run(_ p: ReleaseParams, in context: MethodContext) throws(RPCError) -> ReleaseResult {
        ReleaseResult(released: context.service.store.release(p.handle))
    }
}
