import Foundation
import LayoutProtocol
import LayoutTransport
import Synchronization
import Testing

/// Starts layoutd as systemd would on socket activation: `listener` as fd 3, LISTEN_PID set
/// to the daemon's own pid. Returns its pid.
func spawnActivated(listener: Int32, config: String = "\(repositoryRoot)/config/layoutd.json") throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, listener, 3)
    let command = "LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=layoutd.socket exec \(try Daemon.binary()) --config \(config) --log-level error >/dev/null"
    let words: [String] = ["/bin/sh", "-c", command]
    let argv: [UnsafeMutablePointer<CChar>?] = words.map { (word: String) in strdup(word) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ) == 0 else { throw Client.ClientError.closed }
    return pid
}

@Suite("Faults: the daemon killed, clients vanishing, bad fonts", .serialized)
struct FaultTests {
    /// kill -9 under socket activation, with a request in flight: the socket stays (systemd
    /// holds it), the client reconnects and asks again, the restarted daemon answers. Nothing
    /// is lost beyond the connection that died, and every answer is the same as before.
    @Test func killedAndRestartedUnderSocketActivationWhileClientsRetry() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let socketPath = "\(folder)/activated.sock"
        let listener = try UnixSocket.listen(path: socketPath)
        let daemonPID = Mutex<pid_t>(try spawnActivated(listener: listener.rawValue))
        defer {
            let pid = daemonPID.withLock { $0 }
            kill(pid, SIGKILL)
            var s: Int32 = 0
            waitpid(pid, &s, 0)
        }
        let text = String(repeating: "Retry until answered, whatever happens to the daemon. ", count: 200)
        let params: JSONValue = ["text": .string(text), "width": 240]
        var client = try Client(path: socketPath)
        let expected = try client.result("layout", params)
        var answers: [JSONValue] = []
        var reconnects = 0
        var killed = false
        var restarter: Thread?
        for id in 1...20 {
            var answered = false
            while !answered {
                do {
                    try client.connection.send(RPCRequest(id: .number(Double(id)), method: "layout", params: params).json)
                    if id == 8 && !killed {
                        // The daemon dies with this request in flight; a new one starts a
                        // moment later, on the same listening socket.
                        killed = true
                        let old = daemonPID.withLock { $0 }
                        kill(old, SIGKILL)
                        var status: Int32 = 0
                        waitpid(old, &status, 0)
                        let fd = listener.rawValue
                        restarter = Thread {
                            usleep(200_000)
                            if let fresh = try? spawnActivated(listener: fd) { daemonPID.withLock { $0 = fresh } }
                        }
                        restarter?.start()
                    }
                    guard let reply = try client.connection.receive() else { throw Client.ClientError.closed }
                    #expect(reply["id"] == .number(Double(id)))
                    answers.append(reply["result"] ?? .null)
                    answered = true
                } catch {
                    reconnects += 1
                    try #require(reconnects < 50, "the restarted daemon never answered")
                    usleep(20_000)
                    if let again = try? Client(path: socketPath) { client = again }
                }
            }
        }
        #expect(killed)
        #expect(reconnects >= 1 && reconnects <= 3, "\(reconnects) reconnects")
        #expect(answers.count == 20)
        for answer in answers {
            #expect(answer["lines"] == expected["lines"] && answer["size"] == expected["size"])
        }
    }

    /// Clients that vanish mid-answer (closing right after asking for a big result, or
    /// half-way through reading it) cost the daemon nothing: it serves on, and its open
    /// sockets come back to where they were.
    @Test func clientsVanishingMidResponse() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let pid = daemon.process.processIdentifier
        let probe = try daemon.connect()
        _ = try probe.result("ping")
        func descriptors() -> [String: String] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            var targets: [String: String] = [:]
            for name in names {
                targets[name] = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(name)")) ?? "?"
            }
            return targets
        }
        // Sockets are what a vanished client could leave behind; the runtime may open other
        // descriptors of its own on first need (libdispatch's timerfd under load, seen once).
        func openDescriptors() -> Int { descriptors().values.filter { $0.hasPrefix("socket:") }.count }
        let initial = descriptors()
        let before = openDescriptors()
        let text = String(repeating: "A long answer for a client that will not wait for it. ", count: 600)
        for i in 0..<20 {
            let client = try daemon.connect()
            try client.connection.send(RPCRequest(id: .number(Double(i)), method: "layout",
                                                  params: ["text": .string(text), "width": 200, "detail": "glyphs"]).json)
            if i % 2 == 1 {
                // Read a little of the answer, then go.
                var buffer = [UInt8](repeating: 0, count: 1000)
                _ = recv(client.connection.rawDescriptor, &buffer, buffer.count, 0)
            }
            client.connection.close()
        }
        // Wait for the daemon to finish the abandoned work and close their sockets (the whole
        // test suite runs at once on a debug build: give it two minutes).
        var after = openDescriptors()
        for _ in 0..<2400 where after > before {
            usleep(50_000)
            after = openDescriptors()
        }
        let extra = descriptors().filter { initial[$0.key] != $0.value }
        let open = try probe.result("stats")["connections"]?["open"]
        #expect(after <= before, "sockets \(before) before, \(after) after; new descriptors: \(extra); connections open: \(open ?? .null)")
        #expect(try probe.result("layout", ["text": "still serving"])["lines"]?.arrayValue?.count == 1)
        #expect(daemon.process.isRunning)
    }
}

/// Bad font files in an extra font folder: garbage, empty, a font truncated after the daemon
/// started, a font deleted after it started. Each is reported with a log line, requests fall
/// back to other fonts, and nothing crashes.
@Suite("Faults: bad font files")
struct BadFontTests {
    @Test func missingTruncatedAndGarbageFontsAreSkippedWithALogLine() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let extra = "\(folder)/fonts"
        try FileManager.default.createDirectory(atPath: extra, withIntermediateDirectories: true)
        var garbage = [UInt8](repeating: 0, count: 5000)
        for i in garbage.indices { garbage[i] = UInt8(truncatingIfNeeded: i &* 2654435761 >> 7) }
        #expect(FileManager.default.createFile(atPath: "\(extra)/garbage.ttf", contents: Data(garbage)))
        #expect(FileManager.default.createFile(atPath: "\(extra)/empty.otf", contents: Data()))
        // Inter's files, copied into the extra folder (the pinned folder of Inter is left out).
        let interFolder = "/usr/share/fonts/truetype/inter-vf"
        try FileManager.default.copyItem(atPath: "\(interFolder)/Inter.var.ttf", toPath: "\(extra)/Inter.var.ttf")
        try FileManager.default.copyItem(atPath: "\(interFolder)/InterDisplay.var.ttf", toPath: "\(extra)/InterDisplay.var.ttf")
        let pinned = try String(contentsOfFile: "\(repositoryRoot)/config/fonts.conf", encoding: .utf8)
        try pinned.replacingOccurrences(of: interFolder, with: extra).write(toFile: "\(folder)/fonts.conf", atomically: true, encoding: .utf8)
        try #"{"fontConfig": "\#(folder)/fonts.conf"}"#.write(toFile: "\(folder)/layoutd.json", atomically: true, encoding: .utf8)
        let daemon = try Daemon(configPath: "\(folder)/layoutd.json")
        defer { daemon.stop() }
        let client = try daemon.connect()
        // Garbage and empty files: skipped at the scan, each with a log line, listed in stats.
        let skipped = try client.result("stats")["fonts"]?["skippedFiles"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(skipped.sorted() == ["\(extra)/empty.otf", "\(extra)/garbage.ttf"])
        #expect(daemon.log.contains("font file \(extra)/garbage.ttf skipped"))
        // After start, one font is truncated and the other deleted.
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(extra)/Inter.var.ttf"))
        try data.prefix(data.count / 3).write(to: URL(fileURLWithPath: "\(extra)/Inter.var.ttf"))
        try FileManager.default.removeItem(atPath: "\(extra)/InterDisplay.var.ttf")
        for family in ["Inter", "Inter Display"] {
            let result = try client.result("layout", ["text": "Hello, world", "font": ["family": .string(family)], "detail": "runs"])
            let used = result["fonts"]?.arrayValue?.compactMap { $0["family"]?.stringValue } ?? []
            #expect(used == ["Noto Sans"], "\(family) falls back: \(used)")
            let picture = try client.result("render", ["text": "Hello", "font": ["family": .string(family)], "format": "png"])
            #expect(picture["data"]?.stringValue?.isEmpty == false)
        }
        let log = daemon.log
        #expect(log.contains("Inter.var.ttf (face 0) cannot be used") && log.contains("truncated"), "\(log)")
        #expect(log.contains("InterDisplay.var.ttf (face 0) cannot be used"))
        #expect(try client.result("ping")["pong"] == true)
    }
}
