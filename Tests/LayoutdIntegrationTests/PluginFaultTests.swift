import Foundation
import LayoutProtocol
import Testing

/// A link detector in C whose table and behaviour the caller varies: `table` replaces the
/// table's fields, `initBody` and `detectBody` the functions' bodies.
func faultyPlugin(name: String, table: String = "", initBody: String = "return 0;", detectBody: String = "return 0;",
                  entry: String = "layoutd_plugin_entry") -> String {
    """
    #include <layoutd_plugin.h>
    #include <stdio.h>
    #include <string.h>
    #include <unistd.h>
    static int my_init(const layoutd_host *h, const layoutd_value *o, void **s, char *e, size_t n) {
        (void)h; (void)o; (void)s; (void)e; (void)n;
        \(initBody)
    }
    static int my_detect(void *s, const layoutd_detect_request *r, layoutd_link_sink emit, void *c, char *e, size_t n) {
        (void)s; (void)r; (void)emit; (void)c; (void)e; (void)n;
        \(detectBody)
    }
    static const char *const kinds[] = {"\(name)", NULL};
    static layoutd_plugin table = {
        .abi_version = LAYOUTD_PLUGIN_ABI_VERSION, .struct_size = sizeof(layoutd_plugin),
        .kind = LAYOUTD_KIND_LINK_DETECTOR, .name = "\(name)", .version = "0", .kinds = kinds,
        .init = my_init, .detect = my_detect,
    };
    const layoutd_plugin *\(entry)(uint32_t v) {
        (void)v;
        \(table)
        return &table;
    }
    """
}

/// A configuration in `folder` that loads the plugins there and no built-in one, with one
/// more `plugins` setting; its path.
func pluginOnlyConfig(_ folder: String, _ setting: KeyValuePairs<String, Double>) throws -> String {
    let extra = setting.map { #", "\#($0.key)": \#($0.value)"# }.joined()
    let config = "\(folder)/layoutd.json"
    try #"{"fontConfig": "\#(repositoryRoot)/config/fonts.conf", "plugins": {"folders": ["\#(folder)"], "builtin": false\#(extra)}}"#
        .write(toFile: config, atomically: true, encoding: .utf8)
    return config
}

@Suite("Plugin faults: refused at load, dropped at call, never a crash", .serialized)
struct PluginFaultTests {
    @Test func badPluginsAreRefusedWithAReasonAndTheDaemonServes() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try compilePlugin(faultyPlugin(name: "oldabi", table: "table.abi_version = 99;"), name: "oldabi", in: folder)
        _ = try compilePlugin(faultyPlugin(name: "small", table: "table.struct_size = 16;"), name: "small", in: folder)
        _ = try compilePlugin(faultyPlugin(name: "noentry", entry: "some_other_name"), name: "noentry", in: folder)
        _ = try compilePlugin(faultyPlugin(name: "initfails", initBody: #"snprintf(e, n, "no licence key configured"); return 3;"#),
                              name: "initfails", in: folder)
        _ = try compilePlugin(faultyPlugin(name: "crashes", initBody: "volatile int *p = 0; *p = 1; return 0;"), name: "crashes", in: folder)
        _ = try compilePlugin(faultyPlugin(name: "hangs", initBody: "for (;;) pause(); return 0;"), name: "hangs", in: folder)
        _ = try compilePlugin(faultyPlugin(name: "crashcall", detectBody: "volatile int *p = 0; *p = 1; return 0;"), name: "crashcall", in: folder)
        _ = try compilePlugin(faultyPlugin(name: "good", detectBody: #"layoutd_link l = {0, 1, "good", "v"}; emit(c, &l); return 0;"#),
                              name: "good", in: folder)
        try "not an ELF file".write(toFile: "\(folder)/garbage.so", atomically: true, encoding: .utf8)
        let daemon = try Daemon(configPath: try pluginOnlyConfig(folder, ["probeSeconds": 2]))
        defer { daemon.stop() }
        let client = try daemon.connect()
        let loaded = try client.result("initialize", [:])["capabilities"]?["plugins"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(loaded == ["good"])
        let failed = try client.result("stats")["plugins"]?["failed"]?.arrayValue ?? []
        func reason(_ file: String) -> String {
            failed.first { $0["path"]?.stringValue?.hasSuffix("/\(file).so") == true }?["reason"]?.stringValue ?? "(not listed)"
        }
        #expect(reason("oldabi").contains("ABI version 99"), "\(reason("oldabi"))")
        #expect(reason("small").contains("16 bytes"), "\(reason("small"))")
        #expect(reason("noentry").contains("no entry point"), "\(reason("noentry"))")
        #expect(reason("initfails").contains("no licence key configured"), "\(reason("initfails"))")
        #expect(reason("crashes").contains("crashed"), "\(reason("crashes"))")
        #expect(reason("hangs").contains("hung"), "\(reason("hangs"))")
        #expect(reason("crashcall").contains("crashed"), "a crash in its first call is caught by the probe: \(reason("crashcall"))")
        #expect(reason("garbage").contains("cannot be loaded"), "\(reason("garbage"))")
        #expect(failed.count == 8)
        // Each refusal is a log line that says why.
        let log = daemon.log
        #expect(log.contains("plugin refused") && log.contains("no licence key configured"))
        // The daemon serves, and the good plugin works.
        let result = try client.result("layout", ["text": "xyz", "detectors": ["good"]])
        #expect(regions(result, kind: "good").count == 1)
    }

    @Test func invalidResultsAreDroppedWithALogLine() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A plugin that behaves in the probe (the sample text has no "!") and returns
        // garbage on real text: ranges reversed, past the end, splitting a character, a
        // kind it does not declare; one good link last.
        let body = #"""
            if (!memchr(r->text, '!', r->text_length)) return 0;
            layoutd_link bad[] = {{5, 2, "junk", NULL}, {0, 100000, "junk", NULL}, {1, 2, "junk", NULL},
                                  {0, 1, "other", NULL}, {0, 0, "junk", NULL}};
            for (int i = 0; i < 5; i++) emit(c, &bad[i]);
            layoutd_link good = {0, 3, "junk", "ok"};
            emit(c, &good);
            return 0;
            """#
        _ = try compilePlugin(faultyPlugin(name: "junk", detectBody: body), name: "junk", in: folder)
        let daemon = try Daemon(arguments: ["--plugin-dir", folder, "--no-builtin-plugins"])
        defer { daemon.stop() }
        let client = try daemon.connect()
        let result = try client.result("layout", ["text": "é! done", "detectors": ["junk"]])
        let hits = regions(result, kind: "junk")
        #expect(hits.count == 1)
        #expect(hits.first?["value"] == "ok")
        #expect(hits.first?["end"] == 2, "bytes [0, 3) of \"é!\" are UTF-16 [0, 2)")
        let stats = try client.result("stats")["plugins"]?["loaded"]?.arrayValue?.first
        #expect(stats?["droppedResults"] == 5)
        #expect(daemon.log.contains("dropped 5 invalid result(s)"))
        #expect(try client.result("ping")["pong"] == true)
    }

    @Test func aFailingCallIsAWarningNotAnError() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let body = #"if (!memchr(r->text, '!', r->text_length)) return 0; snprintf(e, n, "backend unreachable"); return 1;"#
        _ = try compilePlugin(faultyPlugin(name: "flaky", detectBody: body), name: "flaky", in: folder)
        let daemon = try Daemon(arguments: ["--plugin-dir", folder, "--no-builtin-plugins"])
        defer { daemon.stop() }
        let client = try daemon.connect()
        let result = try client.result("layout", ["text": "hello!", "detectors": ["flaky"]])
        #expect(result["lines"]?.arrayValue?.count == 1)
        #expect(result["warnings"]?.arrayValue?.first?.stringValue?.contains("backend unreachable") == true)
    }

    /// A plugin that passes its probe and then crashes or hangs on some real input: the call
    /// is stopped (a fault handler, a timer), the request answered with a warning, the
    /// plugin disabled until the next reload, and the daemon serves on.
    @Test func aPluginCrashingOrHangingAtCallTimeIsStoppedAndDisabled() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try compilePlugin(faultyPlugin(name: "segv", detectBody: #"if (memchr(r->text, '!', r->text_length)) { volatile int *p = 0; *p = 1; } return 0;"#),
                              name: "segv", in: folder)
        _ = try compilePlugin(faultyPlugin(name: "spin", detectBody: #"if (memchr(r->text, '!', r->text_length)) for (volatile int i = 0; ; i++) {} return 0;"#),
                              name: "spin", in: folder)
        _ = try compilePlugin(faultyPlugin(name: "aborts", detectBody: #"if (memchr(r->text, '!', r->text_length)) abort(); return 0;"#).replacingOccurrences(of: "#include <unistd.h>", with: "#include <unistd.h>\n#include <stdlib.h>"),
                              name: "aborts", in: folder)
        let daemon = try Daemon(configPath: try pluginOnlyConfig(folder, ["callSeconds": 0.5]))
        defer { daemon.stop() }
        let client = try daemon.connect()
        for kind in ["segv", "spin", "aborts"] {
            let quiet = try client.result("layout", ["text": "calm text", "detectors": [.string(kind)]])
            #expect(quiet["warnings"] == nil, "\(kind) behaves on calm text")
            let hit = try client.result("layout", ["text": "boom!", "detectors": [.string(kind)]])
            #expect(hit["lines"]?.arrayValue?.count == 1, "the layout is answered")
            let warning = hit["warnings"]?.arrayValue?.first?.stringValue ?? ""
            #expect(warning.contains(kind == "spin" ? "ran past the 0.5 s limit" : "crashed"), "\(kind): \(warning)")
            // Disabled now: even calm text gets the warning, at once.
            let after = try client.result("layout", ["text": "calm text", "detectors": [.string(kind)]])
            #expect(after["warnings"]?.arrayValue?.first?.stringValue?.contains("disabled") == true)
        }
        let loaded = try client.result("stats")["plugins"]?["loaded"]?.arrayValue ?? []
        #expect(loaded.count == 3 && loaded.allSatisfy { $0["disabled"]?.stringValue != nil })
        #expect(try client.result("ping")["pong"] == true)
        #expect(daemon.process.isRunning)
        #expect(daemon.log.contains("crashed in detect"))
    }

    /// A plugin stopped at `callSeconds` while it emits without end: what it had emitted is
    /// freed (the host's sink runs to its end before the call is stopped), and the results
    /// dropped past the limit are counted, not kept.
    @Test func aCallStoppedWhileEmittingFreesWhatItEmitted() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let body = #"if (memchr(r->text, '!', r->text_length)) { layoutd_link l = {0, 1, "flood", "v"}; for (;;) emit(c, &l); } return 0;"#
        _ = try compilePlugin(faultyPlugin(name: "flood", detectBody: body), name: "flood", in: folder)
        let daemon = try Daemon(configPath: try pluginOnlyConfig(folder, ["callSeconds": 0.3]))
        defer { daemon.stop() }
        let client = try daemon.connect()
        var sizes: [Double] = []
        for _ in 0..<6 {
            let hit = try client.result("layout", ["text": "boom!", "detectors": ["flood"]])
            #expect(hit["warnings"]?.arrayValue?.first?.stringValue?.contains("ran past the 0.3 s limit") == true)
            _ = try client.result("reload")   // loads it again, enabled
            sizes.append(daemon.residentMiB)
        }
        // Each stopped call emitted well over 100 000 results: kept, they would be tens of MiB.
        #expect(sizes[5] - sizes[1] < 24, "resident memory after each stopped call: \(sizes) MiB")
        #expect(daemon.process.isRunning)
    }

    @Test func aFolderOthersCanWriteIsRefused() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try compilePlugin(faultyPlugin(name: "good"), name: "good", in: folder)
        chmod(folder, 0o777)
        let daemon = try Daemon(arguments: ["--plugin-dir", folder, "--no-builtin-plugins"])
        defer { daemon.stop() }
        let client = try daemon.connect()
        let failed = try client.result("stats")["plugins"]?["failed"]?.arrayValue ?? []
        #expect(failed.first?["reason"]?.stringValue?.contains("writable by others") == true)
        #expect(try client.result("initialize", [:])["capabilities"]?["plugins"] == [])
    }

    /// docs/plugins.md's example is Plugins/example/ticket.c, compiles with `cc -shared
    /// -fPIC` as it stands and loads with `--plugin-dir`.
    /// docs/plugins.md's example, built with the commands it gives (in a fresh folder for
    /// /tmp/plugins), loads next to the built-in plugins and answers.
    @Test func theDocumentedExampleBuildsAndLoadsAsWritten() throws {
        let docs = try String(contentsOfFile: "\(repositoryRoot)/docs/plugins.md", encoding: .utf8)
        let section = try #require(docs.range(of: "## A complete link detector in C")).upperBound
        func block(_ language: String) throws -> String {
            let begin = try #require(docs.range(of: "```\(language)\n", range: section..<docs.endIndex))
            let end = try #require(docs.range(of: "\n```", range: begin.upperBound..<docs.endIndex))
            return String(docs[begin.upperBound..<end.lowerBound]) + "\n"
        }
        let shipped = try String(contentsOfFile: "\(repositoryRoot)/docs/examples/colors.c", encoding: .utf8)
        #expect(try block("c") == shipped, "docs/plugins.md shows docs/examples/colors.c exactly")
        let parent = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let folder = "\(parent)/plugins"   // made by the documented commands
        let commands = try block("sh").split(separator: "\n").filter { !$0.hasPrefix("layoutd ") }
            .map { $0.replacingOccurrences(of: "/tmp/plugins", with: folder) }.joined(separator: "\n")
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-ec", commands]
        shell.currentDirectoryURL = URL(fileURLWithPath: repositoryRoot)
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0, "the documented build commands run as written")
        let daemon = try Daemon(arguments: ["--plugin-dir", folder])
        defer { daemon.stop() }
        let client = try daemon.connect()
        let names = try client.result("initialize", [:])["capabilities"]?["plugins"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(names?.contains("colors") == true && names?.contains("ticket") == true, "\(names ?? [])")
        let result = try client.result("layout", ["text": "Accent #1A73E8 on #fff, not #12345 or a#bcd",
                                                   "detectors": [["kind": "color", "upper": true]]])
        let hits = regions(result, kind: "color")
        #expect(hits.compactMap { $0["value"]?.stringValue } == ["#1A73E8", "#FFFFFF"])
        #expect(hits.first?["start"] == 7 && hits.first?["end"] == 14)
        #expect(daemon.log.contains("plugin colors: color detector ready"))
    }

    /// Issue 7: a reload with a new plugin folder in the configuration loads its plugins
    /// without dropping connections.
    @Test func reloadPicksUpANewPluginFolder() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try String(contentsOfFile: "\(repositoryRoot)/Plugins/example/ticket.c", encoding: .utf8)
        try FileManager.default.createDirectory(atPath: "\(folder)/new", withIntermediateDirectories: true)
        chmod("\(folder)/new", 0o700)
        _ = try compilePlugin(source, name: "ticket", in: "\(folder)/new")
        let config = "\(folder)/layoutd.json"
        func write(folders: [String]) throws {
            let list = folders.map { "\"\($0)\"" }.joined(separator: ", ")
            try #"{"fontConfig": "\#(repositoryRoot)/config/fonts.conf", "plugins": {"folders": [\#(list)], "builtin": false}}"#
                .write(toFile: config, atomically: true, encoding: .utf8)
        }
        try write(folders: [])
        let daemon = try Daemon(configPath: config)
        defer { daemon.stop() }
        let client = try daemon.connect()
        #expect(try client.call("layout", ["text": "QA-7", "detectors": ["ticket"]])["error"]?["code"] == -32602)
        try write(folders: ["\(folder)/new"])
        _ = try client.result("reload")
        let plugins = try client.result("initialize", [:])["capabilities"]?["plugins"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(plugins == ["ticket"])
        let result = try client.result("layout", ["text": "QA-7", "detectors": ["ticket"]])
        #expect(regions(result, kind: "ticket").count == 1, "same connection, new plugin")
    }
}

/// The C harnesses of Tests/PluginHarness, run against the plugins SwiftPM built beside
/// layoutd: every detection rule of the links plugin, shortcodes, and the render plugin's
/// pixels and SVG, call by call through the ABI.
@Suite("Plugin harnesses (C, through the ABI)")
struct PluginHarnessTests {
    func run(_ harness: String, _ plugins: [String]) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let binary = "\(folder)/\(harness)"
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        cc.arguments = ["cc", "-std=c11", "-I", "\(repositoryRoot)/Sources/CLayoutPlugin/include",
                        "\(repositoryRoot)/Tests/PluginHarness/\(harness).c", "-ldl", "-lm", "-o", binary]
        try cc.run()
        cc.waitUntilExit()
        try #require(cc.terminationStatus == 0, "cc \(harness).c")
        let built = URL(fileURLWithPath: try Daemon.binary()).deletingLastPathComponent().path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = plugins.map { "\(built)/liblayoutd-plugin-\($0).so" }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output.split(separator: "\n").filter { $0.contains("FAIL") }.prefix(20).joined(separator: "\n"))")
        #expect(output.contains(" 0 failed"))
    }

    @Test func linksAndShortcodes() throws { try run("links_test", ["links", "shortcodes"]) }
    @Test func render() throws { try run("render_test", ["render"]) }
}
