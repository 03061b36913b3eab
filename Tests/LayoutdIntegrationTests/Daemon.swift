import Foundation
import LayoutProtocol
import LayoutTransport
import Testing

/// The repository's root, from this file's path.
let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// A new private folder (mode 0700) under the temporary directory, with a random name
/// (mkdtemp(3)). Foundation's `itemReplacementDirectory` names folders "(A Document Being
/// Saved By …)", "… 2", reusing a name as soon as its folder is gone, so a test that removed
/// a path twice could remove another test's folder; random names are not reused.
func temporaryFolder() throws -> String {
    var base = NSTemporaryDirectory()
    while base.hasSuffix("/") { base.removeLast() }
    var template = Array("\(base)/layoutd-test-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw TemporaryFolderError(errno: errno) }
    return String(cString: made)
}

struct TemporaryFolderError: Error { var errno: Int32 }

/// A real layoutd, built by `swift build`, started on a socket in a fresh temporary folder
/// with the repository's pinned fonts. Stopped (SIGTERM, then waited for) by `stop()`.
final class Daemon {
    let process = Process()
    let folder: String
    let ownsFolder: Bool
    let socketPath: String

    /// Where the daemon's standard error goes (its log lines).
    var logPath: String { "\(folder)/layoutd.log" }

    /// A configuration whose daemon admits only uid 12345: it refuses every test's connection.
    static let refusingEveryTest = #"{"fontConfig": "\#(repositoryRoot)/config/fonts.conf", "allowedUids": [12345]}"#

    /// `limits`: a JSON object of `limits` to put in a configuration written for this run;
    /// `configText`: a whole configuration to write for it instead; `configPath`: a
    /// configuration file to use instead; `arguments`: more command-line arguments
    /// (`--plugin-dir`, ...); `folder`: a folder of the caller's to run in (kept by `stop()`,
    /// so a second daemon can take the same socket path).
    init(limits: String? = nil, configText: String? = nil, configPath: String? = nil, arguments: [String] = [],
         folder given: String? = nil) throws {
        ownsFolder = given == nil
        folder = try given ?? temporaryFolder()
        socketPath = "\(folder)/layoutd.sock"
        var config = configPath ?? "\(repositoryRoot)/config/layoutd.json"
        if let text = configText ?? limits.map({ #"{"fontConfig": "\#(repositoryRoot)/config/fonts.conf", "limits": \#($0)}"# }) {
            config = "\(folder)/layoutd.json"
            try text.write(toFile: config, atomically: true, encoding: .utf8)
        }
        process.executableURL = URL(fileURLWithPath: try Self.binary())
        process.arguments = ["--socket", socketPath, "--config", config, "--log-level", "info"] + arguments
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: "\(folder)/layoutd.log", contents: nil)
        process.standardError = FileHandle(forWritingAtPath: "\(folder)/layoutd.log")
        try process.run()
        // Ready when the socket file exists and accepts connections.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: socketPath), let connection = try? LineConnection(path: socketPath) {
                connection.close()
                return
            }
            guard process.isRunning else { throw DaemonError.exited(process.terminationStatus) }
            usleep(20_000)
        }
        stop()
        throw DaemonError.notReady
    }

    enum DaemonError: Error { case exited(Int32), notReady, missingBinary(String) }

    /// `$LAYOUTD_BINARY`, or `layoutd` beside the test bundle (SwiftPM builds it there).
    static func binary() throws -> String {
        if let path = ProcessInfo.processInfo.environment["LAYOUTD_BINARY"] { return path }
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidate = exe.deletingLastPathComponent().appendingPathComponent("layoutd").path
        guard FileManager.default.isExecutableFile(atPath: candidate) else { throw DaemonError.missingBinary(candidate) }
        return candidate
    }

    func connect() throws -> Client { try Client(path: socketPath) }

    /// The daemon's resident memory now, in MiB (VmRSS).
    var residentMiB: Double { Double(procStatus(process.processIdentifier, "VmRSS") ?? 0) / 1024 }

    /// What the daemon has logged so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    private var stopped = false

    /// Stops the daemon and removes its folder, once: a second call (`deinit` after a
    /// `defer { stop() }`) does nothing.
    func stop() {
        guard !stopped else { return }
        stopped = true
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        if ownsFolder { try? FileManager.default.removeItem(atPath: folder) }
    }

    deinit { stop() }
}

/// systemd's own socket activation: `systemd-socket-activate` listening as `listen` says (its
/// `-l` and `--fdname` options), then exec'ing layoutd with `configuration` on the first
/// connection, the sockets as fds 3 on. Running; the caller stops it.
func socketActivated(listen: [String], configuration: String) throws -> Process {
    let tool = "/usr/bin/systemd-socket-activate"
    try #require(FileManager.default.isExecutableFile(atPath: tool), "systemd-socket-activate is installed")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = listen + [try Daemon.binary(), "--config", configuration, "--log-level", "warning"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
}

/// A client of the socket at `path`, once it accepts (nil after 10 s).
func clientWhenListening(_ path: String) -> Client? {
    for _ in 0..<500 {
        if let client = try? Client(path: path) { return client }
        usleep(20_000)
    }
    return nil
}

/// A blocking JSON-RPC client over one connection.
final class Client {
    let connection: LineConnection
    private var nextID = 1

    init(path: String) throws { connection = try LineConnection(path: path) }

    /// `address`: `tcp:HOST:PORT` (or a path, or `unix:PATH`).
    init(address: String) throws { connection = try LineConnection(address: address) }

    /// Sends a request and returns the whole response object.
    func call(_ method: String, _ params: JSONValue? = nil) throws -> JSONValue {
        let id = nextID
        nextID += 1
        try connection.send(RPCRequest(id: .number(Double(id)), method: method, params: params).json)
        guard let reply = try connection.receive() else { throw ClientError.closed }
        #expect(reply["id"] == .number(Double(id)), "response id must match")
        return reply
    }

    /// Sends a request and returns its result, failing the test on an error.
    func result(_ method: String, _ params: JSONValue? = nil) throws -> JSONValue {
        let reply = try call(method, params)
        guard let result = reply["result"] else { throw ClientError.error(reply["error"] ?? .null) }
        return result
    }

    /// Sends raw bytes as one line and returns the parsed response (nil at end of stream).
    func raw(_ line: String) throws -> JSONValue? {
        try connection.send(line: Array(line.utf8))
        return try connection.receive()
    }

    enum ClientError: Error { case closed, error(JSONValue) }
}

/// Paragraphs of Tests/Corpus/paragraphs.jsonl (or `$LAYOUTD_CORPUS`): id, lang, text.
struct CorpusParagraph { var id: String; var lang: String; var text: String }

func loadCorpus() throws -> [CorpusParagraph] {
    let path = ProcessInfo.processInfo.environment["LAYOUTD_CORPUS"]
        ?? "\(repositoryRoot)/Tests/Corpus/paragraphs.jsonl"
    let data = try String(contentsOfFile: path, encoding: .utf8)
    return try data.split(separator: "\n").map { line in
        let v = try JSONParser.parse(String(line))
        return CorpusParagraph(id: v["id"]?.stringValue ?? "", lang: v["lang"]?.stringValue ?? "", text: v["text"]?.stringValue ?? "")
    }
}
