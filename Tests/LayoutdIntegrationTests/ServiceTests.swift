import Foundation
import LayoutProtocol
import LayoutTransport
import Testing

/// layoutd as a service: its own socket's lock, allowed peers, and systemd's socket
/// activation, readiness notification and units.
@Suite(.serialized) struct ServiceTests {
    @Test func aSecondDaemonOnTheSameSocketRefusesToStart() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let second = Process()
        second.executableURL = URL(fileURLWithPath: try Daemon.binary())
        second.arguments = ["--socket", daemon.socketPath, "--config", "\(repositoryRoot)/config/layoutd.json"]
        let err = Pipe()
        second.standardError = err
        second.standardOutput = FileHandle.nullDevice
        try second.run()
        second.waitUntilExit()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(second.terminationStatus != 0)
        #expect(message.contains("already"), "\(message)")
        // The first one still answers.
        #expect(try daemon.connect().result("ping")["pong"] == true)
    }

    @Test func peersOutsideAllowedUidsAreRefused() throws {
        let folder = NSTemporaryDirectory() + "layoutd-peer-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = "\(folder)/layoutd.json"
        // Nobody's uid: not ours, so this test's own connection is refused.
        try #"{"fontConfig": "\#(repositoryRoot)/config/fonts.conf", "allowedUids": [4294967290]}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try Daemon(configPath: config)
        defer { daemon.stop() }
        let connection = try LineConnection(path: daemon.socketPath)
        let reply = try #require(try connection.receive())
        #expect(reply["error"]?["code"] == -32000)
        #expect(reply["error"]?["message"]?.stringValue?.contains("may not use") == true)
        #expect(try connection.receive() == nil, "then the connection is closed")
    }

    @Test func socketActivationAndReadiness() throws {
        let folder = NSTemporaryDirectory() + "layoutd-sd-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The listening socket systemd would pass, and a notification socket to hear READY=1.
        let socketPath = "\(folder)/activated.sock"
        let listener = try UnixSocket.listen(path: socketPath)
        let notifyPath = "\(folder)/notify.sock"
        let notify = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        #expect(notify >= 0)
        defer { close(notify) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in Array(notifyPath.utf8).enumerated() { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(notify, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(notify, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        // As systemd starts it: the socket on fd 3, LISTEN_PID set to the daemon's own pid.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, listener.rawValue, 3)
        let command = "LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=layoutd.socket NOTIFY_SOCKET=\(notifyPath) exec \(try Daemon.binary()) --config \(repositoryRoot)/config/layoutd.json --log-level warning >/dev/null"
        let words: [String] = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { (word: String) in strdup(word) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        #expect(posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ) == 0)
        defer {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        // READY=1 arrives once fonts are warm and the listener is live.
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(notify, &buffer, buffer.count, 0)
        let message = n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
        #expect(message.contains("READY=1") && message.contains("STATUS="), "\(message)")
        // It serves on the socket it was given.
        let client = try Client(path: socketPath)
        #expect(try client.result("ping")["pong"] == true)
        // SIGTERM: STOPPING=1, exit 0; the socket file is systemd's and stays.
        kill(pid, SIGTERM)
        let stopping = recv(notify, &buffer, buffer.count, 0)
        #expect(stopping > 0 && String(decoding: buffer[0..<max(stopping, 0)], as: UTF8.self).contains("STOPPING=1"))
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(status == 0, "exit status \(status)")
        #expect(FileManager.default.fileExists(atPath: socketPath))
    }

    @Test func statsCountRequestsCachesAndMemory() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        _ = try client.result("layout", ["text": "count me", "retain": true])
        _ = try client.call("layout", ["text": 3])
        // The daemon's readiness probe may still be closing: wait for it to be counted out.
        var stats = try client.result("stats")
        for _ in 0..<100 where stats["connections"]?["open"] != 1 {
            usleep(20_000)
            stats = try client.result("stats")
        }
        #expect((stats["requests"]?["total"]?.intValue ?? 0) >= 2)
        #expect((stats["requests"]?["errors"]?.intValue ?? 0) >= 1)
        #expect(stats["requests"]?["byMethod"]?["layout"] == 2)
        #expect(stats["requests"]?["errorsByMethod"]?["layout"] == 1)
        #expect(stats["requests"]?["errorsByMethod"]?["stats"] == nil)
        #expect(stats["requests"]?["latencyMs"]?["p50"]?.doubleValue != nil)
        #expect(stats["connections"]?["open"] == 1)
        #expect(stats["caches"]?["retainedLayouts"]?["count"] == 1)
        #expect((stats["caches"]?["fontFaces"]?["count"]?.intValue ?? 0) >= 1)
        // Hit rates: the second layout of the same font finds its fallback list and faces.
        let fallback = stats["caches"]?["fallbackLists"]
        #expect((fallback?["hits"]?.intValue ?? 0) >= 1 && (fallback?["misses"]?.intValue ?? 0) >= 1)
        let rate = try #require(fallback?["hitRate"]?.doubleValue)
        #expect(rate > 0 && rate < 1)
        _ = try client.call("caret", ["handle": "no-such-handle", "index": 0])
        let retained = try client.result("stats")["caches"]?["retainedLayouts"]
        #expect(retained?["misses"] == 1, "an unknown handle is a miss")
        #expect((stats["memory"]?["residentBytes"]?.intValue ?? 0) > 1_000_000)
    }

    @Test func halfSentMessagesAndTooManyConnectionsPerUser() throws {
        let daemon = try Daemon(limits: #"{"partialMessageSeconds": 0.5, "maxConnectionsPerUid": 3}"#)
        defer { daemon.stop() }
        // A message left half-sent past its deadline: an error line, then the connection closes.
        let slow = try daemon.connect()
        try slow.connection.send(line: [])   // a blank line is fine: nothing pending
        var partial = Array(#"{"jsonrpc":"2.0","id":1,"meth"#.utf8)
        _ = partial.withUnsafeMutableBytes { write(slow.connection.rawDescriptor, $0.baseAddress, $0.count) }
        let reply = try #require(try slow.connection.receive())
        #expect(reply["error"]?["message"]?.stringValue?.contains("incomplete") == true)
        #expect(try slow.connection.receive() == nil)
        // An idle connection is not dropped.
        let idle = try daemon.connect()
        usleep(800_000)
        #expect(try idle.result("ping")["pong"] == true)
        // Per uid: the third connection is fine (idle is one), a fourth is refused.
        let second = try daemon.connect(), third = try daemon.connect()
        _ = try second.result("ping"); _ = try third.result("ping")
        let fourth = try LineConnection(path: daemon.socketPath)
        let refused = try #require(try fourth.receive())
        #expect(refused["error"]?["message"]?.stringValue?.contains("too many connections from uid") == true)
    }

    @Test func reloadRescansFontsAndTellsSubscribers() throws {
        let folder = NSTemporaryDirectory() + "layoutd-reload-\(getpid())"
        let extra = "\(folder)/extra"
        try FileManager.default.createDirectory(atPath: extra, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try """
            <?xml version="1.0"?>
            <fontconfig>
              <dir>/usr/share/fonts/truetype/dejavu</dir>
              <dir>\(extra)</dir>
              <cachedir>\(folder)/cache</cachedir>
            </fontconfig>
            """.write(toFile: "\(folder)/fonts.conf", atomically: true, encoding: .utf8)
        try #"{"fontConfig": "fonts.conf"}"#.write(toFile: "\(folder)/layoutd.json", atomically: true, encoding: .utf8)
        let daemon = try Daemon(configPath: "\(folder)/layoutd.json")
        defer { daemon.stop() }
        let watcher = try daemon.connect()
        _ = try watcher.result("initialize", ["subscribe": ["fontsChanged"]])
        let before = try #require(watcher.result("layout", ["text": "x"])["fontFingerprint"]?.stringValue)
        // Same fonts: reloading keeps the fingerprint and sends nothing.
        let other = try daemon.connect()
        #expect(try other.result("reload")["fontFingerprint"]?.stringValue == before)
        // A font appears in a configured folder: reload (here by SIGHUP) sees it.
        try FileManager.default.copyItem(atPath: "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
                                         toPath: "\(extra)/NotoSans-Regular.ttf")
        kill(daemon.process.processIdentifier, SIGHUP)
        let note = try #require(try watcher.connection.receive())
        #expect(note["method"] == "fontsChanged" && note["id"] == nil)
        let after = try #require(note["params"]?["fontFingerprint"]?.stringValue)
        #expect(after != before)
        let layout = try watcher.result("layout", ["text": "x", "font": ["family": "Noto Sans"]])
        #expect(layout["fontFingerprint"]?.stringValue == after)
        #expect(layout["fonts"]?.arrayValue?.first?["family"] == "Noto Sans", "the new font is used")
        let bad = try other.call("initialize", ["subscribe": ["everything"]])
        #expect(bad["error"]?["data"]?["field"] == "subscribe")
    }

    @Test func sigtermFinishesRequestsInFlight() throws {
        // A drain deadline no machine load reaches: the test is about finishing, not timing.
        let daemon = try Daemon(limits: #"{"drainSeconds": 600}"#)
        defer { daemon.stop() }
        let client = try daemon.connect()
        // A request that takes a while, then SIGTERM while it runs.
        let text = String(repeating: "lorem ipsum dolor sit amet ", count: 40_000)
        try client.connection.send(RPCRequest(id: .number(1), method: "layout", params: ["text": .string(text), "width": 300]).json)
        usleep(200_000)
        kill(daemon.process.processIdentifier, SIGTERM)
        let reply = try #require(try client.connection.receive())
        #expect(reply["result"]?["lines"]?.arrayValue?.isEmpty == false, "the request in flight is answered")
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "the socket file is gone")
    }

    /// `update` runs as an ordered job (its connection's later messages wait for it); SIGTERM
    /// waits for it like any other request.
    @Test func sigtermFinishesAnUpdateInFlight() throws {
        // A drain deadline no machine load reaches: the test is about finishing, not timing.
        let daemon = try Daemon(limits: #"{"drainSeconds": 600}"#)
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = String(repeating: "lorem ipsum dolor sit amet ", count: 40_000)
        let handle = try #require(client.result("layout", ["text": .string(text), "width": 300, "retain": true])["handle"]?.stringValue)
        // One paragraph of 1 MB: an edit at its start lays all of it out again.
        try client.connection.send(RPCRequest(id: .number(2), method: "update", params: [
            "handle": .string(handle), "edits": [["start": 0, "end": 5, "text": "LOREM"]]]).json)
        usleep(100_000)
        kill(daemon.process.processIdentifier, SIGTERM)
        let reply = try #require(try client.connection.receive())
        #expect(reply["id"] == 2 && reply["error"] == nil && reply["result"]?["lines"]?.arrayValue?.isEmpty == false,
                "the update in flight is answered: \(String(describing: reply["error"]))")
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus == 0)
    }

    @Test func pipelinedRequestsAnswerOutOfOrderAndCanBeCancelled() throws {
        let daemon = try Daemon(limits: #"{"requestSeconds": 60}"#)
        defer { daemon.stop() }
        let client = try daemon.connect()
        let slow = String(repeating: "lorem ipsum dolor sit amet ", count: 60_000)
        // A slow request, then quick ones, without waiting: the quick ones come back first.
        try client.connection.send(RPCRequest(id: .string("slow"), method: "layout", params: ["text": .string(slow), "width": 300]).json)
        for i in 1...3 {
            try client.connection.send(RPCRequest(id: .number(Double(i)), method: "measure", params: ["text": "quick"]).json)
        }
        var order: [RPCId] = []
        var replies: [RPCId: JSONValue] = [:]
        while order.count < 4, let reply = try client.connection.receive() {
            let id: RPCId = reply["id"]?.stringValue.map { .string($0) } ?? .number(reply["id"]?.doubleValue ?? -1)
            order.append(id)
            replies[id] = reply
        }
        #expect(Set(order) == [.string("slow"), .number(1), .number(2), .number(3)], "every id answered once")
        #expect(order.last == .string("slow"), "the quick requests did not wait for the slow one: \(order)")
        #expect(replies[.string("slow")]?["result"] != nil)

        // $/cancelRequest stops a running request: it answers -32800.
        try client.connection.send(RPCRequest(id: .number(9), method: "layout", params: ["text": .string(slow + slow), "width": 300]).json)
        usleep(100_000)
        try client.connection.send(RPCRequest(id: nil, method: "$/cancelRequest", params: ["id": 9]).json)
        let cancelled = try #require(try client.connection.receive())
        #expect(cancelled["id"] == 9 && cancelled["error"]?["code"] == -32800, "\(JSONWriter.string(cancelled).prefix(200))")
        #expect(try client.result("ping")["pong"] == true)
    }

    @Test func requestsPastTheTimeLimitStop() throws {
        let daemon = try Daemon(limits: #"{"requestSeconds": 0.05}"#)
        defer { daemon.stop() }
        let client = try daemon.connect()
        let slow = String(repeating: "lorem ipsum dolor sit amet\n", count: 60_000)
        let reply = try client.call("layout", ["text": .string(slow), "width": 300])
        #expect(reply["error"]?["code"] == -32000)
        #expect(reply["error"]?["message"]?.stringValue?.contains("time limit") == true)
        #expect(try client.result("ping")["pong"] == true)
    }

    @Test func requestsPastTheCPULimitStop() throws {
        let daemon = try Daemon(limits: #"{"requestSeconds": 600, "requestCPUSeconds": 0.05}"#)
        defer { daemon.stop() }
        let client = try daemon.connect()
        let slow = String(repeating: "lorem ipsum dolor sit amet\n", count: 60_000)
        let reply = try client.call("layout", ["text": .string(slow), "width": 300])
        #expect(reply["error"]?["code"] == -32000)
        #expect(reply["error"]?["message"]?.stringValue?.contains("CPU time") == true, "\(reply)")
        #expect(try client.result("measure", ["text": "quick"])["size"] != nil, "a cheap request is served")
    }

    /// Activation as systemd does it, by systemd's own tool: `systemd-socket-activate`
    /// listens, execs layoutd on the first connection with the socket as fd 3 (LISTEN_FDS,
    /// LISTEN_PID, LISTEN_FDNAMES), and layoutd answers that first connection and later ones.
    @Test func activationThroughSystemdSocketActivate() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let socketPath = "\(folder)/activated.sock"
        let process = try socketActivated(listen: ["-l", socketPath, "--fdname=layoutd.socket"],
                                          configuration: "\(repositoryRoot)/config/layoutd.json")
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        let client = clientWhenListening(socketPath)
        let first = try #require(client)
        #expect(try first.result("ping")["pong"] == true, "the connection that woke it is answered")
        let second = try Client(path: socketPath)
        #expect(try second.result("layout", ["text": "activated"])["lines"]?.arrayValue?.count == 1)
        // The tool exec'd layoutd in its place: SIGTERM stops layoutd, which exits 0 and
        // leaves the socket file to its owner.
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: socketPath))
    }

    @Test func systemdUnitsVerify() throws {
        // scripts/setup installs systemd (the package, not a running init) for this.
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"), "systemd-analyze is installed")
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The man page the units name as their documentation, where `man` finds it.
        try FileManager.default.createDirectory(atPath: "\(folder)/man/man8", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/docs/man/layoutd.8", toPath: "\(folder)/man/man8/layoutd.8")
        try FileManager.default.createDirectory(atPath: "\(folder)/runtime", withIntermediateDirectories: true)
        for (kind, source) in [("system", "config"), ("user", "config/user")] {
            // The units as shipped, with ExecStart pointing at the binary just built.
            try FileManager.default.createDirectory(atPath: "\(folder)/\(kind)", withIntermediateDirectories: true)
            let service = try String(contentsOfFile: "\(repositoryRoot)/\(source)/layoutd.service", encoding: .utf8)
                .replacingOccurrences(of: "/usr/bin/layoutd", with: try Daemon.binary())
            try service.write(toFile: "\(folder)/\(kind)/layoutd.service", atomically: true, encoding: .utf8)
            try FileManager.default.copyItem(atPath: "\(repositoryRoot)/\(source)/layoutd.socket", toPath: "\(folder)/\(kind)/layoutd.socket")
            let environment = ProcessInfo.processInfo.environment + ["MANPATH": "\(folder)/man", "XDG_RUNTIME_DIR": "\(folder)/runtime"]
            let (status, text) = try run("/usr/bin/systemd-analyze", (kind == "user" ? ["--user"] : []) + ["verify", "\(folder)/\(kind)/layoutd.socket", "\(folder)/\(kind)/layoutd.service"],
                                         environment: environment)
            #expect(status == 0 && text.isEmpty, "systemd-analyze verify (\(kind) units): \(text)")
        }
    }
}
