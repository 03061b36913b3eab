import LayoutClient
import LayoutProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Exit statuses (see `Help.exitStatus`).
enum ExitStatus {
    static let failed: Int32 = 1, usage: Int32 = 2, unreachable: Int32 = 3
}

extension String {
    /// Without white space (spaces, tabs, line ends) at either end.
    var trimmingWhiteSpace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}

func fail(_ message: String, status: Int32 = ExitStatus.failed) -> Never {
    var bytes = Array("layoutctl: \(message)\n".utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

/// layoutctl's way to the daemon: a `LayoutClient` at `--socket`, else at the first of the
/// clients' search order that accepts; any error ends the program with a message saying
/// what went wrong where, and the exit status `Help.exitStatus` gives it.
struct Daemon {
    let client: LayoutClient
    let explicitSocket: String?

    init(socket: String?, offsetEncoding: OffsetEncoding = .utf16) {
        explicitSocket = socket
        client = LayoutClient(socket: socket, token: Self.token(), offsetEncoding: offsetEncoding, clientName: "layoutctl")
    }

    /// The token for a TCP listener: the content of `$LAYOUTD_TOKEN_FILE` less surrounding
    /// white space (the file opened without following a link), or nil when it is unset.
    static func token() -> String? {
        guard let path = getenv("LAYOUTD_TOKEN_FILE").map({ String(cString: $0) }), !path.isEmpty else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { fail("LAYOUTD_TOKEN_FILE \(path): \(String(cString: strerror(errno)))", status: ExitStatus.usage) }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n >= 0 else { fail("LAYOUTD_TOKEN_FILE \(path): \(String(cString: strerror(errno)))", status: ExitStatus.usage) }
        return String(decoding: bytes[0..<n], as: UTF8.self).trimmingWhiteSpace
    }

    /// What `body` answers, or the end of the program with its error.
    func run<T>(_ body: (LayoutClient) async throws(LayoutClientError) -> T) async -> T {
        do { return try await body(client) } catch {
            await exit(with: error)
        }
    }

    private func exit(with error: LayoutClientError) async -> Never {
        let at = "layoutd at \(await client.connectedPath ?? explicitSocket ?? "?")"
        switch error {
        case .noDaemon(let tried):
            let how = explicitSocket == nil
                ? "(set LAYOUTD_SOCKET or pass --socket; start one with `systemctl --user start layoutd.socket` or scripts/run)"
                : "(is layoutd running there?)"
            fail("no layoutd reachable; tried:\n\(tried.map { "  \($0)" }.joined(separator: "\n"))\n\(how)", status: ExitStatus.unreachable)
        case .refused(let code, let message):
            fail("\(at): \(message) (code \(code))", status: ExitStatus.unreachable)
        case .server(let code, let message, _):
            fail("\(at): \(message) (code \(code))")
        case .connectionLost(let why):
            fail("\(why) (\(at))")
        case .cancelled, .malformedAnswer:
            fail("\(error) (\(at))")
        }
    }
}
