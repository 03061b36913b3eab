import Foundation
import LayoutClient
import LayoutProtocol
import LayoutTransport
import Testing

/// Listeners named by `listen`: a TCP listener beside the Unix socket, served only to a
/// client whose first message is `initialize` with the token of `auth.tokenFile`.
@Suite(.serialized) struct ListenerTests {
    static let token = "s3cret-token-for-the-tests-0123456789"

    /// A daemon on its Unix socket and on a TCP port of 127.0.0.1 the kernel picks, with the
    /// token written to a file only its owner reads; `limits`: its `limits` object.
    static func tcpDaemon(limits: String = "{}") throws -> (Daemon, port: UInt16) {
        let folder = try temporaryFolder()
        try (token + "\n").write(toFile: "\(folder)/token", atomically: true, encoding: .utf8)
        chmod("\(folder)/token", 0o600)
        let config = #"{"fontConfig": "\#(repositoryRoot)/config/fonts.conf", "listen": ["tcp:127.0.0.1:0"], "auth": {"tokenFile": "token"}, "limits": \#(limits)}"#
        let daemon = try Daemon(configText: config, folder: folder)
        return (daemon, try port(of: daemon))
    }

    /// The TCP port the daemon's log says it listens on (it may accept on its Unix socket a
    /// moment before it logs that line).
    static func port(of daemon: Daemon) throws -> UInt16 {
        let deadline = Date().addingTimeInterval(30)
        var found: Substring?
        while found == nil, Date() < deadline {
            found = daemon.log.split(separator: "\n").first { $0.contains("listening on") && $0.contains("tcp:127.0.0.1:") }
            if found == nil { usleep(20_000) }
        }
        let line = try #require(found, "no TCP listener in the log: \(daemon.log)")
        let digits = line.split(separator: "tcp:127.0.0.1:").last.map { $0.prefix { $0.isNumber } } ?? ""
        return try #require(UInt16(digits), "\(line)")
    }

    static func connect(_ port: UInt16) throws -> Client { try Client(address: "tcp:127.0.0.1:\(port)") }

    /// The one line a refused client reads, and that the connection then ends.
    static func refusal(after line: String, port: UInt16) throws -> String {
        let client = try connect(port)
        let answer = try #require(try client.raw(line))
        #expect(answer["id"] == .null && answer["error"]?["code"] == -32000, "\(answer)")
        #expect(try client.connection.receive() == nil, "the connection must close after the refusal")
        return answer["error"]?["message"]?.stringValue ?? ""
    }

    @Test func aTCPClientWithoutTheTokenGetsOneLineAndIsClosed() throws {
        let (daemon, port) = try Self.tcpDaemon()
        defer { daemon.stop() }
        let ping = try Self.refusal(after: #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, port: port)
        #expect(ping.contains("send initialize with params.auth.token first"), "\(ping)")
        let none = try Self.refusal(after: #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#, port: port)
        #expect(none.contains("no params.auth.token"), "\(none)")
        let wrong = try Self.refusal(after: #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"auth":{"token":"s3cret-token-for-the-tests-012345678X"}}}"#, port: port)
        #expect(wrong.contains("not this layoutd's"), "\(wrong)")
        // Messages sent after a refused first one are dropped, not answered.
        let client = try Self.connect(port)
        try client.connection.send(line: Array(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.utf8) + [0x0A] + Array(#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#.utf8))
        #expect(try client.connection.receive()?["error"]?["code"] == -32000)
        #expect(try client.connection.receive() == nil)
        #expect(daemon.log.contains("refused a TCP connection"))
    }

    @Test func aTCPClientWithTheTokenIsServedAndTheUnixSocketNeedsNone() throws {
        let (daemon, port) = try Self.tcpDaemon()
        defer { daemon.stop() }
        let client = try Self.connect(port)
        // The token's request and the next travel together: both are answered.
        try client.connection.send(line: Array(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"auth":{"token":"\#(Self.token)"}}}"#.utf8)
            + [0x0A] + Array(#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#.utf8))
        #expect(try client.connection.receive()?["result"]?["protocolVersion"] != nil)
        #expect(try client.connection.receive()?["id"] == 2)
        let measured = try client.result("measure", ["text": "Hello over TCP", "width": 300])
        #expect(measured["lineCount"] == 1 && (measured["size"]?["height"]?.doubleValue ?? 0) > 0, "\(measured)")
        let local = try daemon.connect()
        #expect(try local.result("ping", [:]) != .null)
    }

    @Test func layoutClientSpeaksTCPWithItsToken() async throws {
        let (daemon, port) = try Self.tcpDaemon()
        defer { daemon.stop() }
        // By name, as a client reaches a Kubernetes Service.
        let client = LayoutClient(socket: "tcp:localhost:\(port)", token: Self.token)
        let size = try await client.measure(LayoutParams(text: "Hello", width: 200))
        #expect(size.height > 0)
        do {
            _ = try await LayoutClient(socket: "tcp:127.0.0.1:\(port)").measure(LayoutParams(text: "Hello", width: 200))
            Issue.record("served without the token")
        } catch {
            guard case .refused(let code, let message) = error else { Issue.record("\(error)"); return }
            #expect(code == -32000 && message.contains("params.auth.token"), "\(message)")
        }
    }

    /// A TCP peer that says nothing is closed once its time to present the token is up, and
    /// only a few may wait at once (an eighth of maxConnections, at least 4): peers without
    /// the token cannot take every place.
    @Test func peersWithoutTheTokenCannotHoldTheirPlaces() throws {
        let (daemon, port) = try Self.tcpDaemon(limits: #"{"partialMessageSeconds": 1, "maxConnections": 32}"#)
        defer { daemon.stop() }
        let silent = try (0..<4).map { _ in try Self.connect(port) }
        let fifth = try Self.connect(port)
        let turnedAway = try #require(try fifth.connection.receive())
        #expect(turnedAway["error"]?["message"]?.stringValue?.contains("waiting to present the token") == true, "\(turnedAway)")
        #expect(try daemon.connect().result("ping")["pong"] == true, "local clients keep their places")
        for client in silent {
            let answer = try #require(try client.connection.receive())
            #expect(answer["error"]?["message"]?.stringValue?.contains("within 1.0 s") == true, "\(answer)")
            #expect(try client.connection.receive() == nil)
        }
        let later = try Self.connect(port)
        #expect(try later.result("initialize", ["auth": ["token": .string(Self.token)]])["protocolVersion"] != nil)
        #expect(try later.result("ping")["pong"] == true)
    }

    @Test func layoutctlReachesATCPListenerWithTheTokenFile() throws {
        let (daemon, port) = try Self.tcpDaemon()
        defer { daemon.stop() }
        let address = "tcp:127.0.0.1:\(port)"
        var environment = ProcessInfo.processInfo.environment
        environment["LAYOUTD_TOKEN_FILE"] = "\(daemon.folder)/token"
        let served = try LayoutctlTests().layoutctl(["--socket", address, "ping"], environment: environment)
        #expect(served.status == 0 && served.output.contains(address), "\(served)")
        environment["LAYOUTD_TOKEN_FILE"] = nil
        let refused = try LayoutctlTests().layoutctl(["--socket", address, "ping"], environment: environment)
        #expect(refused.status == 3 && refused.error.contains("params.auth.token"), "\(refused)")
    }

    @Test func aReloadReadsTheTokenAgain() throws {
        let (daemon, port) = try Self.tcpDaemon()
        defer { daemon.stop() }
        let fresh = "another-token-after-the-reload-42"
        try fresh.write(toFile: "\(daemon.folder)/token", atomically: true, encoding: .utf8)
        chmod("\(daemon.folder)/token", 0o600)
        let reloaded = try daemon.connect().result("reload", [:])
        #expect(reloaded != .null)
        let old = try Self.refusal(after: #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"auth":{"token":"\#(Self.token)"}}}"#, port: port)
        #expect(old.contains("not this layoutd's"))
        let client = try Self.connect(port)
        #expect(try client.result("initialize", ["auth": ["token": .string(fresh)]])["protocolVersion"] != nil)
    }

    /// `--check-config` of `config` (written to a file in `folder`) → its status and output.
    static func check(_ config: String, in folder: String) throws -> (status: Int32, output: String) {
        try config.write(toFile: "\(folder)/config.json", atomically: true, encoding: .utf8)
        return try run(try Daemon.binary(), ["--check-config", "\(folder)/config.json"])
    }

    @Test func badListenersAndTokensAreRefusedWithWhy() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fonts = #""fontConfig": "\#(repositoryRoot)/config/fonts.conf""#
        let noToken = try Self.check(#"{\#(fonts), "listen": ["tcp:127.0.0.1:7000"]}"#, in: folder)
        #expect(noToken.status == 1 && noToken.output.contains("needs auth.tokenFile"), "\(noToken.output)")
        let badAddress = try Self.check(#"{\#(fonts), "listen": ["tcp:localhost"]}"#, in: folder)
        #expect(badAddress.status == 1 && badAddress.output.contains("listen[0]"), "\(badAddress.output)")
        let named = try Self.check(#"{\#(fonts), "listen": ["unix:/run/x.sock", "tcp:localhost:7000"]}"#, in: folder)
        #expect(named.status == 1 && named.output.contains("listen[1]") && named.output.contains("numeric"), "\(named.output)")
        try "short".write(toFile: "\(folder)/short", atomically: true, encoding: .utf8)
        chmod("\(folder)/short", 0o600)
        let short = try Self.check(#"{\#(fonts), "auth": {"tokenFile": "short"}}"#, in: folder)
        #expect(short.status == 1 && short.output.contains("at least 16"), "\(short.output)")
        try Self.token.write(toFile: "\(folder)/open", atomically: true, encoding: .utf8)
        chmod("\(folder)/open", 0o644)
        let open = try Self.check(#"{\#(fonts), "auth": {"tokenFile": "open"}}"#, in: folder)
        #expect(open.status == 1 && open.output.contains("other users may read"), "\(open.output)")
        chmod("\(folder)/open", 0o600)
        let good = try Self.check(#"{\#(fonts), "listen": ["unix:/run/x.sock", "tcp:[::1]:7000"], "auth": {"tokenFile": "open"}}"#, in: folder)
        #expect(good.status == 0 && good.output.contains("listen: unix:/run/x.sock, tcp:[::1]:7000"), "\(good.output)")
    }

    /// A port free now (the kernel's pick for port 0, released at once).
    static func freePort() throws -> UInt16 {
        let probe = try TCPSocket.listen(host: "127.0.0.1", port: 0)
        return try #require(TCPSocket.boundAddress(probe.rawValue)?.port)
    }

    /// systemd hands over a Unix and a TCP socket (`systemd-socket-activate`, two `-l`):
    /// each is taken as given, and the TCP one asks for the token as a configured one does.
    @Test func activatedSocketsOfBothKindsAreTakenAsGiven() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.token.write(toFile: "\(folder)/token", atomically: true, encoding: .utf8)
        chmod("\(folder)/token", 0o600)
        let config = #"{"fontConfig": "\#(repositoryRoot)/config/fonts.conf", "auth": {"tokenFile": "token"}}"#
        try config.write(toFile: "\(folder)/layoutd.json", atomically: true, encoding: .utf8)
        let port = try Self.freePort()
        let process = try socketActivated(listen: ["-l", "\(folder)/activated.sock", "-l", "127.0.0.1:\(port)"],
                                          configuration: "\(folder)/layoutd.json")
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        #expect(try #require(clientWhenListening("\(folder)/activated.sock")).result("ping")["pong"] == true)
        let refused = try Self.refusal(after: #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, port: port)
        #expect(refused.contains("params.auth.token"), "\(refused)")
        let remote = try Self.connect(port)
        #expect(try remote.result("initialize", ["auth": ["token": .string(Self.token)]])["protocolVersion"] != nil)
        #expect(try remote.result("ping")["pong"] == true)
    }
}
