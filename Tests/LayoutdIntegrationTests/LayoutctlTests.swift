import Foundation
import LayoutProtocol
import Testing

/// layoutctl, run as a person would, against a real layoutd.
@Suite(.serialized) struct LayoutctlTests {
    func layoutctl(_ arguments: [String], input: String? = nil, environment: [String: String]? = nil) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Daemon.binary()).deletingLastPathComponent().appendingPathComponent("layoutctl")
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe(), inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
        try inPipe.fileHandleForWriting.close()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let error = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output, error)
    }

    @Test func printsEachLineWithItsText() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let r = try layoutctl(["--socket", daemon.socketPath, "layout", "--width", "120", "--font", "Noto Sans 16",
                               "The quick brown fox jumps over the lazy dog"])
        #expect(r.status == 0, "\(r.error)")
        let lines = r.output.split(separator: "\n")
        #expect(lines.first?.hasPrefix("size ") == true)
        #expect(lines.count >= 4)
        #expect(lines.dropFirst().allSatisfy { $0.contains("baseline") && $0.contains("│") })
        // The line texts, joined, give the text back.
        let texts = lines.dropFirst().compactMap { line -> String? in
            guard let a = line.firstIndex(of: "│"), let b = line.lastIndex(of: "│"), a < b else { return nil }
            return String(line[line.index(after: a)..<b])
        }
        #expect(texts.joined() == "The quick brown fox jumps over the lazy dog")
    }

    @Test func wrapStyleAndHyphenationOptions() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let text = "It was the best of times, it was the worst of times, it was the age of wisdom"
        func ranges(_ options: [String]) throws -> [String] {
            let r = try layoutctl(["--socket", daemon.socketPath, "layout", "--width", "150", "--font", "Noto Sans 16"]
                                  + options + [text])
            #expect(r.status == 0, "\(r.error)")
            return r.output.split(separator: "\n").dropFirst().compactMap { $0.split(separator: "[").dropFirst().first.map(String.init) }
        }
        // As docs/protocol.md shows it: optimal breaks after "times," (53), greedy after "was" (56).
        #expect(try ranges(["--wrap-style", "optimal"]).contains { $0.hasPrefix("37, 53)") })
        #expect(try ranges([]).contains { $0.hasPrefix("37, 56)") })
        let hyphenated = try layoutctl(["--socket", daemon.socketPath, "layout", "--width", "120", "--language", "en",
                                        "--hyphenation", "auto", "see hyphenation"])
        #expect(hyphenated.output.contains("│see hyphen│") || hyphenated.output.contains("│see hy│"), "\(hyphenated.output)")
        let bad = try layoutctl(["--socket", daemon.socketPath, "layout", "--wrap-style", "best", "x"])
        #expect(bad.status == 2 && bad.error.contains("greedy, balance, optimal, pretty"))
    }

    @Test func readsStandardInputAndPrintsJSON() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let r = try layoutctl(["--socket", daemon.socketPath, "layout", "--json", "--width", "300", "-"], input: "مرحبا بالعالم\nשלום")
        #expect(r.status == 0, "\(r.error)")
        #expect(r.output.hasPrefix("{\"size\":"))
        #expect(r.output.contains("\"lines\":["))
    }

    @Test func pingAndErrors() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let ping = try layoutctl(["--socket", daemon.socketPath, "ping"])
        #expect(ping.status == 0 && ping.output.contains("layoutd"))
        let bad = try layoutctl(["--socket", daemon.socketPath, "layout", "--width", "-3", "x"])
        #expect(bad.status != 0 && bad.error.contains("`width`"))
        let nowhere = try layoutctl(["--socket", "\(daemon.folder)/nothing.sock", "ping"])
        #expect(nowhere.status == 3 && nowhere.error.contains("\(daemon.folder)/nothing.sock: no such socket"), "\(nowhere.error)")
    }

    /// `--help`, `help COMMAND`, `--version` and the exit statuses the help lists.
    @Test func helpVersionAndExitStatuses() throws {
        let help = try layoutctl(["--help"])
        #expect(help.status == 0 && help.output.hasPrefix("usage: layoutctl"))
        for command in ["ping", "layout", "render", "stats", "fonts", "help", "version"] {
            #expect(help.output.contains("\n  \(command)"), "--help lists \(command)")
            let one = try layoutctl(["help", command])
            #expect(one.status == 0 && one.output.hasPrefix("usage: layoutctl [--socket PATH] \(command)"), "help \(command)")
        }
        #expect(try layoutctl(["layout", "--help"]).output.hasPrefix("usage: layoutctl [--socket PATH] layout"))
        #expect(try layoutctl(["frobnicate"]).status == 2)
        #expect(try layoutctl(["layout", "--frobnicate", "x"]).status == 2)
        #expect(try layoutctl(["help", "frobnicate"]).status == 2)
        let daemon = try Daemon()
        defer { daemon.stop() }
        let version = try layoutctl(["--socket", daemon.socketPath, "--version"])
        #expect(version.output == "layoutctl \(LayoutdVersion.current)\nlayoutd \(LayoutdVersion.current) at \(daemon.socketPath) (protocol 1)\n")
        let alone = try layoutctl(["--version"], environment: ["LAYOUTD_SOCKET": "\(daemon.folder)/none.sock"])
        #expect(alone.status == 0 && alone.output == "layoutctl \(LayoutdVersion.current)\n", "no daemon: only layoutctl's own")
        let failing = try layoutctl(["--socket", daemon.socketPath, "layout", "--width", "-1", "x"])
        #expect(failing.status == 1, "a daemon error is status 1")
        let fonts = try layoutctl(["--socket", daemon.socketPath, "fonts"])
        #expect(fonts.status == 0 && fonts.output.split(separator: "\n").contains("Noto Sans"), "\(fonts.output.prefix(200))")
    }

    /// Without --socket: LAYOUTD_SOCKET alone when set; else $XDG_RUNTIME_DIR/layoutd, then
    /// /run/layoutd, then /tmp/layoutd-$UID, each named when none answers.
    @Test func findsTheDaemonInTheDocumentedOrder() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let explicit = try layoutctl(["ping"], environment: ["LAYOUTD_SOCKET": daemon.socketPath, "XDG_RUNTIME_DIR": "/nonexistent"])
        #expect(explicit.status == 0 && explicit.output.contains(" at \(daemon.socketPath):"), "\(explicit.error)")
        // A runtime folder holding the daemon's socket as layoutd/layoutd.sock.
        let runtime = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        try FileManager.default.createDirectory(atPath: "\(runtime)/layoutd", withIntermediateDirectories: true)
        #expect(symlink(daemon.socketPath, "\(runtime)/layoutd/layoutd.sock") == 0)
        let found = try layoutctl(["ping"], environment: ["XDG_RUNTIME_DIR": runtime])
        #expect(found.status == 0 && found.output.contains(" at \(runtime)/layoutd/layoutd.sock:"), "\(found.error)")
        let none = try layoutctl(["ping"], environment: ["XDG_RUNTIME_DIR": "/nonexistent"])
        let tried = none.error.split(separator: "\n").filter { $0.hasPrefix("  ") }.map { $0.split(separator: ":").first.map(String.init) ?? "" }
        #expect(none.status == 3)
        if !FileManager.default.fileExists(atPath: "/run/layoutd/layoutd.sock") {
            #expect(tried == ["  /nonexistent/layoutd/layoutd.sock", "  /run/layoutd/layoutd.sock", "  /tmp/layoutd-\(getuid())/layoutd.sock"], "\(none.error)")
        }
    }

    /// The bash completion (config/bash-completion/layoutctl, with Debian's bash-completion):
    /// commands, options, and for --font the daemon's families through `layoutctl fonts`.
    @Test func bashCompletesCommandsOptionsAndFamilies() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let bin = URL(fileURLWithPath: try Daemon.binary()).deletingLastPathComponent().path
        let script = #"""
            source /usr/share/bash-completion/bash_completion
            source "$1/config/bash-completion/layoutctl"
            complete_words() {
                COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
                COMPREPLY=(); _layoutctl; echo "$*: ${COMPREPLY[*]}"
            }
            complete_words layoutctl ren
            complete_words layoutctl render --ov
            complete_words layoutctl layout --wrap-style op
            complete_words layoutctl cat
            complete_words layoutctl catalog --p
            complete_words layoutctl --socket "$2" layout --font "Noto Sans Ar"
            """#
        let (status, output) = try run("/bin/bash", ["-c", script, "bash", repositoryRoot, daemon.socketPath],
                                       environment: ["PATH": "\(bin):/usr/bin:/bin"])
        #expect(status == 0, "\(output)")
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.contains("layoutctl ren: render"), "\(output)")
        #expect(lines.contains("layoutctl render --ov: --overlay"), "\(output)")
        #expect(lines.contains("layoutctl layout --wrap-style op: optimal"), "\(output)")
        #expect(lines.contains("layoutctl cat: catalog") && lines.contains("layoutctl catalog --p: --port"), "\(output)")
        #expect(lines.contains { $0.hasSuffix("--font Noto Sans Ar: Noto Sans Arabic Noto Sans Armenian") }, "\(output)")
    }

    /// A peer the daemon does not admit gets the daemon's own line, which layoutctl prints.
    @Test func aRefusedConnectionShowsTheDaemonsLine() throws {
        let daemon = try Daemon(configText: Daemon.refusingEveryTest)
        defer { daemon.stop() }
        let refused = try layoutctl(["--socket", daemon.socketPath, "ping"])
        #expect(refused.status == 3, "\(refused.error)")
        #expect(refused.error.contains("uid \(getuid()) (groups ") && refused.error.contains("may not use this layoutd (allowed: uids 12345)"), "\(refused.error)")
    }

    @Test func statsPrintsCountersReadably() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        _ = try client.result("layout", ["text": "one"])
        _ = try client.result("layout", ["text": "two"])
        _ = try client.call("layout", ["text": 3])
        let r = try layoutctl(["--socket", daemon.socketPath, "stats"])
        #expect(r.status == 0, "\(r.error)")
        let lines = r.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("layoutd ") == true)
        #expect(lines.contains { $0.hasPrefix("requests ") && $0.contains("1 errors") && $0.contains("p99") }, "\(r.output)")
        #expect(lines.contains("  layout       3 (1 errors)"), "\(r.output)")
        #expect(lines.contains { $0.hasPrefix("connections  ") && $0.contains(" open (limit 256); per event loop ") }, "\(r.output)")
        #expect(lines.contains { $0.hasPrefix("memory") && $0.contains("MiB resident") })
        #expect(lines.contains { $0.hasPrefix("caches") && $0.contains("hit rate") }, "\(r.output)")
        #expect(lines.contains { $0.hasPrefix("plugins") && $0.contains("links 1.0") }, "\(r.output)")
        let json = try layoutctl(["--socket", daemon.socketPath, "stats", "--json"])
        #expect(try JSONParser.parse(Array(json.output.utf8))["requests"]?["errorsByMethod"]?["layout"] == 1)
    }

    @Test func linksNeitherHarfBuzzNorICU() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        process.arguments = [URL(fileURLWithPath: try Daemon.binary()).deletingLastPathComponent().appendingPathComponent("layoutctl").path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let libraries = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(libraries.contains("libc.so"))
        #expect(!libraries.contains("harfbuzz") && !libraries.contains("libicu") && !libraries.contains("fontconfig"))
    }
}
