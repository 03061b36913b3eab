import Foundation
import LayoutProtocol
import Testing

/// `layoutd --check-config` and the configuration file: every option shipped at its default,
/// unknown keys and bad values refused with the key named.
@Suite struct ConfigurationTests {
    /// Runs `layoutd --check-config` on a file holding `json` (or on `path`): exit status,
    /// standard output, standard error.
    /// With `journal`, JOURNAL_STREAM names the standard error pipe, as systemd does for a
    /// service whose output goes to the journal.
    func check(json: String? = nil, path: String? = nil, journal: Bool = false) throws -> (status: Int32, out: String, err: String) {
        var file = path ?? ""
        if let json {
            file = NSTemporaryDirectory() + "layoutd-config-\(getpid())-\(UUID().uuidString).json"
            // Point fontConfig at the pinned fonts unless the text names its own.
            let text = json.contains("fontConfig") ? json
                : json.replacingOccurrences(of: "{", with: #"{"fontConfig": "\#(repositoryRoot)/config/fonts.conf", "#, options: [], range: json.range(of: "{"))
                    .replacingOccurrences(of: ", }", with: "}")
            try text.write(toFile: file, atomically: true, encoding: .utf8)
        }
        defer { if json != nil { try? FileManager.default.removeItem(atPath: file) } }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Daemon.binary())
        process.arguments = ["--check-config", file]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if journal {
            var st = stat()
            #expect(fstat(err.fileHandleForWriting.fileDescriptor, &st) == 0)
            process.environment = ProcessInfo.processInfo.environment.merging(["JOURNAL_STREAM": "\(st.st_dev):\(st.st_ino)"]) { $1 }
        }
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let error = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output, error)
    }

    /// The settings lines of a check (after the "ok" line), without the fontConfig path.
    func settings(_ output: String) -> [String] {
        output.split(separator: "\n").dropFirst().map(String.init).filter { !$0.hasPrefix("fontConfig:") }
    }

    @Test func theShippedFileHoldsEveryOptionAtItsDefault() throws {
        let shipped = try check(path: "\(repositoryRoot)/config/layoutd.json")
        #expect(shipped.status == 0, "\(shipped.err)")
        #expect(shipped.out.hasPrefix("\(repositoryRoot)/config/layoutd.json: ok"))
        // Every limit layoutd prints is spelt out in the file…
        let file = try JSONParser.parse(Array(try String(contentsOfFile: "\(repositoryRoot)/config/layoutd.json", encoding: .utf8).utf8))
        guard case .object(let limits)? = file["limits"] else { Issue.record("no limits in the file"); return }
        let printed = settings(shipped.out).filter { $0.hasPrefix("limits.") }
            .map { String($0.dropFirst("limits.".count).prefix { $0 != ":" }) }
        #expect(printed.count >= 11)
        #expect(Set(limits.map(\.0)) == Set(printed))
        // …and at the value layoutd uses when the file says nothing.
        let defaults = try check(json: "{}")
        #expect(defaults.status == 0, "\(defaults.err)")
        #expect(settings(defaults.out) == settings(shipped.out))
    }

    @Test func unknownKeysAreErrorsThatNameThem() throws {
        for (json, key) in [(#"{"fontconfig": "x"}"#, "`fontconfig`"),
                            (#"{"limits": {"maxConections": 3}}"#, "`limits.maxConections`"),
                            (#"{"defaultFont": {"family": "Inter", "szie": 12}}"#, "`defaultFont.szie`")] {
            let result = try check(json: json)
            #expect(result.status == 1, "\(json)")
            #expect(result.err.contains(key) && result.err.contains("not a known option"), "\(result.err)")
            #expect(result.out.isEmpty)
        }
    }

    @Test func badValuesAreErrorsThatNameTheKey() throws {
        for (json, key) in [(#"{"limits": {"maxConnections": "many"}}"#, "`limits.maxConnections`"),
                            (#"{"limits": {"requestSeconds": -1}}"#, "`limits.requestSeconds`"),
                            (#"{"allowedUids": [-5]}"#, "`allowedUids[0]`"),
                            (#"{"shapeCacheFile": 7}"#, "`shapeCacheFile`")] {
            let result = try check(json: json)
            #expect(result.status == 1, "\(json)")
            #expect(result.err.contains(key), "\(result.err)")
        }
        let notJSON = try check(json: "{limits")
        #expect(notJSON.status == 1 && notJSON.err.contains("not valid JSON"), "\(notJSON.err)")
    }

    @Test func logLinesCarryJournalPrioritiesWhenStandardErrorIsTheJournal() throws {
        let plain = try check(json: #"{"limits": {"bogus": 1}}"#)
        #expect(plain.err.hasPrefix("layoutd[") && plain.err.contains("error: "), "\(plain.err)")
        let bad = try check(json: #"{"limits": {"bogus": 1}}"#, journal: true)
        #expect(bad.err.hasPrefix("<3>error: bad configuration"), "\(bad.err)")
        let good = try check(json: "{}", journal: true)
        let lines = good.err.split(separator: "\n")
        #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("<6>info: ") }, "\(good.err)")
    }
}
