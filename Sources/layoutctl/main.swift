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
      render [--width W] [--font F] [--language TAG] [--format png|svg] [--scale S] [--margin PT]
             [--overlay] [--detect KIND,KIND] [--attachments] [--highlight START:END[:STATE]]
             [--selection START:END] [--background COLOR] -o FILE TEXT|-
                                             draw the layout of TEXT into FILE (PNG or SVG) with
                                             the "render" plugin, so you can see what layoutd
                                             computed; offsets are UTF-8 bytes
      stats [--json]                         the daemon's counters: requests and errors per
                                             method, latency, caches, fonts, memory, plugins

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

case "render":
    var members: [(String, JSONValue)] = [("format", "png")]
    var layoutParams = LayoutParams(text: "")
    var output: String?
    var text: String?
    func value(_ option: String) -> String {
        guard !arguments.isEmpty else { fail("\(option) needs a value\n\(usage)", status: 2) }
        return arguments.removeFirst()
    }
    func range(_ option: String, _ v: String) -> (Int, Int, String?) {
        let parts = v.split(separator: ":").map(String.init)
        guard parts.count >= 2, let a = Int(parts[0]), let b = Int(parts[1]) else { fail("\(option) needs START:END, got \(v)", status: 2) }
        return (a, b, parts.count > 2 ? parts[2] : nil)
    }
    while !arguments.isEmpty {
        let a = arguments.removeFirst()
        switch a {
        case "--width":
            guard let v = Double(value(a)) else { fail("--width needs a number", status: 2) }
            layoutParams.width = v
        case "--font": layoutParams.font = FontSpec(parsing: value(a))
        case "--language": layoutParams.language = value(a)
        case "--format": members.append(("format", .string(value(a))))
        case "--scale":
            guard let v = Double(value(a)) else { fail("--scale needs a number", status: 2) }
            members.append(("scale", .number(v)))
        case "--margin":
            guard let v = Double(value(a)) else { fail("--margin needs a number of points", status: 2) }
            members.append(("margin", .number(v)))
        case "--overlay": members.append(("overlay", true))
        case "--detect":
            members.append(("detectors", .array(value(a).split(separator: ",").map { .string(String($0)) })))
        case "--attachments": members.append(("attachments", true))
        case "--highlight":
            let (start, end, state) = range(a, value(a))
            members.append(("highlight", .object([("start", .number(Double(start))), ("end", .number(Double(end)))]
                                                  + (state.map { [("state", JSONValue.string($0))] } ?? []))))
        case "--selection":
            let (start, end, _) = range(a, value(a))
            members.append(("selection", ["start": .number(Double(start)), "end": .number(Double(end))]))
        case "--background": members.append(("background", .string(value(a))))
        case "-o", "--output": output = value(a)
        case "-": text = readStandardInput()
        default:
            if a.hasPrefix("-") { fail("unknown option \(a)\n\(usage)", status: 2) }
            text = a
        }
    }
    guard let text else { fail("render needs TEXT (or - for standard input)\n\(usage)", status: 2) }
    guard let output else { fail("render needs -o FILE\n\(usage)", status: 2) }
    layoutParams.text = text
    // Later members win: the last --format given is the one sent.
    var params = layoutParams.json.objectMembers ?? []
    var seen = Set<String>()
    for (key, v) in members.reversed() where seen.insert(key).inserted { params.append((key, v)) }
    let client = Client(socket: socket)
    _ = client.call("initialize", ["offsetEncodings": ["utf-8"], "client": ["name": "layoutctl"]])
    let result = client.call("render", .object(params))
    guard let data = result["data"]?.stringValue, let format = result["format"]?.stringValue else {
        fail("malformed render result: \(JSONWriter.string(result).prefix(200))")
    }
    let bytes: [UInt8]
    if format == "png" {
        guard let decoded = Base64.decode(data) else { fail("the PNG data is not valid base64") }
        bytes = decoded
    } else {
        bytes = Array(data.utf8)
    }
    guard let file = fopen(output, "wb") else { fail("cannot write \(output): \(String(cString: strerror(errno)))") }
    let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
    guard written == bytes.count else { fail("cannot write \(output): short write") }
    print("\(output): \(format.uppercased()) \(result["width"].map(JSONWriter.string) ?? "?") × \(result["height"].map(JSONWriter.string) ?? "?")\(format == "png" ? " pixels" : " points"), \(bytes.count) bytes")

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

/// Standard base64 (with padding) to bytes; nil when malformed.
enum Base64 {
    static func decode(_ text: String) -> [UInt8]? {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() { table[Int(c)] = UInt8(i) }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3 / 4)
        var buffer: UInt32 = 0, bits = 0
        for c in text.utf8 {
            if c == 0x3D { break }   // "=": padding ends the data
            if c == 0x0A || c == 0x0D { continue }
            let v = table[Int(c)]
            guard v != 0xFF else { return nil }
            buffer = buffer << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(buffer >> UInt32(bits) & 0xFF))
            }
        }
        return out
    }
}
