import LayoutEngine
import LayoutProtocol
@testable import LayoutServer
import TestSupport

/// A service of its own (empty store and counters) on the shared engine, no plugins.
func makeService(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) -> LayoutService {
    var configuration = ServerConfiguration()
    configuration.fontConfig = "\(repositoryRoot)/config/fonts.conf"
    adjust(&configuration)
    return LayoutService(engine: sharedEngine, configuration: configuration)
}

/// Runs one line the way a connection's loop does — routed, then answered at once or run as
/// its job — and parses the answer (nil when none).
func exchange(_ service: LayoutService, _ line: String, session: Session) throws -> JSONValue? {
    let bytes: [UInt8]?
    switch service.route(line: Array(line.utf8), session: session) {
    case .reply(let answer): bytes = answer
    case .job(let job, _), .ordered(let job): bytes = job()
    }
    return try bytes.map { try JSONParser.parse($0) }
}

/// A request line.
func request(_ id: Int, _ method: String, _ params: JSONValue) -> String {
    String(decoding: JSONWriter.serialize(["jsonrpc": "2.0", "id": .number(Double(id)), "method": .string(method), "params": params]),
           as: UTF8.self)
}
