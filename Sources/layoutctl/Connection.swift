import LayoutProtocol
import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// Exit statuses (see `Help.exitStatus`).
enum ExitStatus {
    static let failed: Int32 = 1, usage: Int32 = 2, unreachable: Int32 = 3
}

func fail(_ message: String, status: Int32 = ExitStatus.failed) -> Never {
    var bytes = Array("layoutctl: \(message)\n".utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

/// A connection to layoutd: at `--socket`, else the first of the clients' search paths that
/// accepts one (`UnixSocket.clientSearchPaths`).
final class Client {
    let connection: LineConnection
    let socket: String
    var nextID = 1

    init(socket explicit: String?) {
        (connection, socket) = Self.connect(explicit)
    }

    /// Connects, or exits (status 3) naming every path tried and why it failed.
    static func connect(_ explicit: String?) -> (LineConnection, String) {
        var tried: [String] = []
        if let found = firstReachable(explicit, tried: &tried) { return found }
        let how = explicit == nil ? "(set LAYOUTD_SOCKET or pass --socket; start one with `systemctl --user start layoutd.socket` or scripts/run)"
            : "(is layoutd running there?)"
        fail("no layoutd reachable; tried:\n\(tried.joined(separator: "\n"))\n\(how)", status: ExitStatus.unreachable)
    }

    /// The first of `--socket` (alone) or the clients' search paths that accepts a
    /// connection, and that path; each one that did not, with why, in `tried`.
    static func firstReachable(_ explicit: String?, tried: inout [String]) -> (LineConnection, String)? {
        for path in explicit.map({ [$0] }) ?? UnixSocket.clientSearchPaths() {
            do { return (try LineConnection(path: path), path) } catch {
                tried.append("  \(path): \(Self.reason(error))")
            }
        }
        return nil
    }

    private static func reason(_ error: any Error) -> String {
        guard let errno = error as? Errno else { return "\(error)" }
        switch errno.code {
        case ENOENT: return "no such socket"
        case ECONNREFUSED: return "nothing listens there"
        case EACCES: return "permission denied (the socket's folder or file is not open to this user)"
        default: return String(cString: strerror(errno.code))
        }
    }

    /// Sends one request and returns its result; exits with the daemon's message on an
    /// error, and with the daemon's own line when it refused the connection (it writes one
    /// error line and closes, which a send may find first as a broken pipe).
    func call(_ method: String, _ params: JSONValue) -> JSONValue {
        let id = nextID
        nextID += 1
        var sendError: (any Error)?
        do { try connection.send(RPCRequest(id: .number(Double(id)), method: method, params: params).json) } catch { sendError = error }
        let reply: JSONValue?
        do { reply = try connection.receive() } catch {
            fail("\(sendError ?? error) (layoutd at \(socket))")
        }
        guard let reply else {
            fail(sendError.map { "\($0): layoutd at \(socket) closed the connection" } ?? "layoutd at \(socket) closed the connection")
        }
        if let error = reply["error"] {
            let message = error["message"]?.stringValue ?? JSONWriter.string(error)
            let code = error["code"].map(JSONWriter.string) ?? "?"
            // An error with a null id before any answer: the daemon refused this connection.
            let refused = reply["id"] == .null && id == 1
            fail("layoutd at \(socket): \(message) (code \(code))", status: refused ? ExitStatus.unreachable : ExitStatus.failed)
        }
        guard let result = reply["result"] else { fail("malformed reply: \(JSONWriter.string(reply))") }
        return result
    }
}
