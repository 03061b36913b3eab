// layoutctl — command-line client for layoutd. Links neither HarfBuzz nor ICU: it speaks
// the protocol only.
import LayoutProtocol
import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

let usage = """
    usage: layoutctl [--socket PATH] COMMAND ...

    commands:
      ping                                   check that layoutd answers
      layout [--width W] [--font "FAMILY [Bold] [Italic] SIZE"] [--language TAG] [--json] TEXT|-
                                             lay out TEXT (- reads standard input) and print
                                             each line: range, box, baseline and its text
      stats [--json]                         the daemon's counters: requests and errors per
                                             method, latency, caches, fonts, memory

    --socket defaults to $XDG_RUNTIME_DIR/layoutd/layoutd.sock, or /tmp/layoutd-$UID/layoutd.sock
    """

func fail(_ message: String, status: Int32 = 1) -> Never {
    var bytes = Array("layoutctl: \(message)\n".utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

func readStandardInput() -> String {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// One request/response over a fresh connection; exits with the server's error message.
final class Client {
    let connection: LineConnection
    var nextID = 1

    init(socket: String) {
        do { connection = try LineConnection(path: socket) } catch {
            fail("cannot connect to layoutd at \(socket): \(error)\n(start it with scripts/run, or pass --socket)")
        }
    }

    func call(_ method: String, _ params: JSONValue) -> JSONValue {
        let id = nextID
        nextID += 1
        do {
            try connection.send(RPCRequest(id: .number(Double(id)), method: method, params: params).json)
            guard let reply = try connection.receive() else { fail("layoutd closed the connection") }
            if let error = reply["error"] {
                fail("layoutd: \(error["message"]?.stringValue ?? JSONWriter.string(error)) (code \(error["code"].map(JSONWriter.string) ?? "?"))")
            }
            guard let result = reply["result"] else { fail("malformed reply: \(JSONWriter.string(reply))") }
            return result
        } catch {
            fail("\(error)")
        }
    }
}

func format(_ d: Double) -> String {
    let r = (d * 10).rounded() / 10
    return r == r.rounded() ? String(Int(r)) : String(r)
}

// MARK: Arguments
var arguments = Array(CommandLine.arguments.dropFirst())
var socketPath: String?
if arguments.first == "--socket" {
    guard arguments.count >= 2 else { fail("--socket needs a path", status: 2) }
    socketPath = arguments[1]
    arguments.removeFirst(2)
}
let socket = socketPath ?? UnixSocket.defaultDaemonPath()
guard let command = arguments.first else { print(usage); exit(2) }
arguments.removeFirst()

switch command {
case "ping":
    let client = Client(socket: socket)
    let info = client.call("initialize", ["client": ["name": "layoutctl"]])
    let server = info["server"]
    print("\(server?["name"]?.stringValue ?? "?") \(server?["version"]?.stringValue ?? "?") at \(socket): protocol \(info["protocolVersion"].map(JSONWriter.string) ?? "?")")

case "layout":
    var width: Double?
    var font = FontSpec()
    var language: String?
    var json = false
    var text: String?
    while !arguments.isEmpty {
        let a = arguments.removeFirst()
        switch a {
        case "--width":
            guard let v = arguments.first.flatMap(Double.init) else { fail("--width needs a number", status: 2) }
            width = v
            arguments.removeFirst()
        case "--font":
            guard let v = arguments.first else { fail("--font needs a value such as \"Noto Sans 16\"", status: 2) }
            font = FontSpec(parsing: v)
            arguments.removeFirst()
        case "--language":
            guard let v = arguments.first else { fail("--language needs a tag", status: 2) }
            language = v
            arguments.removeFirst()
        case "--json":
            json = true
        case "-":
            text = readStandardInput()
        default:
            if a.hasPrefix("--") { fail("unknown option \(a)\n\(usage)", status: 2) }
            text = a
        }
    }
    guard let text else { fail("layout needs TEXT (or - for standard input)\n\(usage)", status: 2) }
    let client = Client(socket: socket)
    _ = client.call("initialize", ["offsetEncodings": ["utf-8"], "client": ["name": "layoutctl"]])
    let params = LayoutParams(text: text, width: width, font: font, language: language)
    let raw = client.call("layout", params.json)
    if json {
        print(JSONWriter.string(raw))
        break
    }
    guard let result = LayoutResult(json: raw) else { fail("malformed layout result: \(JSONWriter.string(raw))") }
    let bytes = Array(text.utf8)
    print("size \(format(result.width)) × \(format(result.height)), \(result.lines.count) line\(result.lines.count == 1 ? "" : "s")\(result.truncated ? ", truncated" : "")")
    for (i, line) in result.lines.enumerated() {
        var shown = String(decoding: bytes[max(0, min(line.start, bytes.count))..<max(0, min(line.end, bytes.count))], as: UTF8.self)
        shown = shown.replacingOccurrences("\n", "⏎").replacingOccurrences("\r", "␍")
        print("\(String(i).leftPadded(3))  [\(line.start), \(line.end))  x \(format(line.x)) y \(format(line.y)) w \(format(line.width)) h \(format(line.height))  baseline \(format(line.baseline))  │\(shown)│")
    }

case "stats":
    var json = false
    for a in arguments {
        guard a == "--json" else { fail("unknown option \(a)\n\(usage)", status: 2) }
        json = true
    }
    let stats = Client(socket: socket).call("stats", [:])
    if json {
        print(JSONWriter.string(stats))
        break
    }
    print(formatStats(stats))

default:
    fail("unknown command \(command)\n\(usage)", status: 2)
}

extension String {
    func replacingOccurrences(_ a: Character, _ b: String) -> String {
        var out = ""
        for c in self { if c == a { out += b } else { out.append(c) } }
        return out
    }

    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
