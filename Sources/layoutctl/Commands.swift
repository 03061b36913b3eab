import LayoutClient
import LayoutProtocol
import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

// The commands: each reads its own options from the arguments after its name.

func readStandardInput() -> String {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        guard let n = try? syscall("read", { chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) } }), n > 0 else { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}

func format(_ d: Double) -> String {
    let r = (d * 10).rounded() / 10
    return r == r.rounded() ? String(Int(r)) : String(r)
}

/// Exits with a usage error that ends with the command's own help.
func usageError(_ message: String, command: String) -> Never {
    fail("\(message)\n\(Help.text(for: command) ?? Help.text)", status: ExitStatus.usage)
}

/// `ping`: the daemon's name, version, socket and protocol.
func ping(_ arguments: [String], socket: String?) async {
    if let extra = arguments.first { usageError("unknown option \(extra)", command: "ping") }
    let daemon = Daemon(socket: socket)
    let server = await daemon.run { client throws(LayoutClientError) in try await client.connect() }
    print("\(server.serverName) \(server.serverVersion) at \(await daemon.client.connectedPath ?? "?"): protocol \(server.protocolVersion)")
}

/// `version` and `--version`: layoutctl's, then the daemon's when one answers (quietly
/// left out when none does).
func version(socket: String?) async {
    print(Help.version)
    let client = LayoutClient(socket: socket, clientName: "layoutctl")
    guard let server = try? await client.connect() else { return }
    print("\(server.serverName) \(server.serverVersion) at \(await client.connectedPath ?? "?") (protocol \(server.protocolVersion))")
    await client.close()
}

/// Reads one of the layout options `layout` and `render` share (`--width`, `--font`,
/// `--language`, `--wrap-style`, `--hyphenation`) into `params`, taking its value with
/// `value`; false for any other option.
func readLayoutOption(_ option: String, into params: inout LayoutParams, command: String, value: (String) -> String) -> Bool {
    func choice(_ choices: [String]) -> String {
        let v = value(option)
        guard choices.contains(v) else { usageError("\(option) needs one of \(choices.joined(separator: ", ")), got \(v)", command: command) }
        return v
    }
    switch option {
    case "--width":
        guard let v = Double(value(option)) else { usageError("--width needs a number", command: command) }
        params.width = v
    case "--font": params.font = FontSpec(parsing: value(option))
    case "--language": params.language = value(option)
    case "--wrap-style": params.paragraph.wrapStyle = choice(ParagraphParams.wrapStyles)
    case "--hyphenation": params.paragraph.hyphenation = choice(ParagraphParams.hyphenations)
    default: return false
    }
    return true
}

/// `layout`: the lines of TEXT (range, box, baseline, text), or the result as sent (--json).
func layout(_ arguments: [String], socket: String?) async {
    var arguments = arguments
    var params = LayoutParams(text: "")
    var json = false
    var text: String?
    func value(_ option: String) -> String {
        guard !arguments.isEmpty else { usageError("\(option) needs a value", command: "layout") }
        return arguments.removeFirst()
    }
    while !arguments.isEmpty {
        let a = arguments.removeFirst()
        if readLayoutOption(a, into: &params, command: "layout", value: value) { continue }
        switch a {
        case "--json": json = true
        case "-": text = readStandardInput()
        default:
            if a.hasPrefix("--") { usageError("unknown option \(a)", command: "layout") }
            text = a
        }
    }
    guard let text else { usageError("layout needs TEXT (or - for standard input)", command: "layout") }
    params.text = text
    // Offsets in UTF-8 bytes: the ranges printed index the text as the terminal has it.
    let daemon = Daemon(socket: socket, offsetEncoding: .utf8)
    if json {
        print(JSONWriter.string(await daemon.run { client throws(LayoutClientError) in try await client.request("layout", params.requestJSON) }))
        return
    }
    printLines(await daemon.run { client throws(LayoutClientError) in try await client.layout(params) }, text: text)
}

/// The lines of a layout result, one per row, with their text.
func printLines(_ result: LayoutResult, text: String) {
    let bytes = Array(text.utf8)
    print("size \(format(result.width)) × \(format(result.height)), \(result.lines.count) line\(result.lines.count == 1 ? "" : "s")\(result.truncated ? ", truncated" : "")")
    for (i, line) in result.lines.enumerated() {
        var shown = String(decoding: bytes[max(0, min(line.start, bytes.count))..<max(0, min(line.end, bytes.count))], as: UTF8.self)
        shown = shown.replacingOccurrences("\n", "⏎").replacingOccurrences("\r", "␍")
        print("\(String(i).leftPadded(3))  [\(line.start), \(line.end))  x \(format(line.x)) y \(format(line.y)) w \(format(line.width)) h \(format(line.height))  baseline \(format(line.baseline))  │\(shown)│")
    }
}

/// `fonts`: the daemon's font families, one per line.
func fonts(_ arguments: [String], socket: String?) async {
    if let extra = arguments.first { usageError("unknown option \(extra)", command: "fonts") }
    let stats = await Daemon(socket: socket).run { client throws(LayoutClientError) in try await client.stats() }
    for family in stats["fonts"]?["families"]?.arrayValue ?? [] { if let name = family.stringValue { print(name) } }
}

/// `stats`: the daemon's counters, formatted or as JSON.
func stats(_ arguments: [String], socket: String?) async {
    var json = false
    for a in arguments {
        guard a == "--json" else { usageError("unknown option \(a)", command: "stats") }
        json = true
    }
    let stats = await Daemon(socket: socket).run { client throws(LayoutClientError) in try await client.stats() }
    print(json ? JSONWriter.string(stats) : formatStats(stats))
}
