import LayoutProtocol
#if canImport(Glibc)
import Glibc
#endif

/// `render`: TEXT laid out and drawn by the render plugin into a PNG or SVG file.
func render(_ arguments: [String], socket: String?) {
    var arguments = arguments
    var members: [(String, JSONValue)] = [("format", "png")]
    var layoutParams = LayoutParams(text: "")
    var output: String?
    var text: String?
    func value(_ option: String) -> String {
        guard !arguments.isEmpty else { usageError("\(option) needs a value", command: "render") }
        return arguments.removeFirst()
    }
    func range(_ option: String, _ v: String) -> JSONValue {
        let parts = v.split(separator: ":").map(String.init)
        guard parts.count >= 2, let a = Int(parts[0]), let b = Int(parts[1]) else { usageError("\(option) needs START:END, got \(v)", command: "render") }
        return .object([("start", .number(Double(a))), ("end", .number(Double(b)))] + (parts.count > 2 ? [("state", .string(parts[2]))] : []))
    }
    while !arguments.isEmpty {
        let a = arguments.removeFirst()
        if readLayoutOption(a, into: &layoutParams, command: "render", value: value) { continue }
        switch a {
        case "--format": members.append(("format", .string(value(a))))
        case "--scale":
            guard let v = Double(value(a)) else { usageError("--scale needs a number", command: "render") }
            members.append(("scale", .number(v)))
        case "--margin":
            guard let v = Double(value(a)) else { usageError("--margin needs a number of points", command: "render") }
            members.append(("margin", .number(v)))
        case "--overlay": members.append(("overlay", true))
        case "--detect": members.append(("detectors", .array(value(a).split(separator: ",").map { .string(String($0)) })))
        case "--attachments": members.append(("attachments", true))
        case "--highlight": members.append(("highlight", range(a, value(a))))
        case "--selection":
            guard case .object(let m) = range(a, value(a)) else { continue }
            members.append(("selection", .object(Array(m.prefix(2)))))
        case "--background": members.append(("background", .string(value(a))))
        case "-o", "--output": output = value(a)
        case "-": text = readStandardInput()
        default:
            if a.hasPrefix("-") { usageError("unknown option \(a)", command: "render") }
            text = a
        }
    }
    guard let text else { usageError("render needs TEXT (or - for standard input)", command: "render") }
    guard let output else { usageError("render needs -o FILE", command: "render") }
    layoutParams.text = text
    // Later members win: the last --format given is the one sent.
    var params = layoutParams.json.objectMembers ?? []
    var seen = Set<String>()
    for (key, v) in members.reversed() where seen.insert(key).inserted { params.append((key, v)) }
    let client = Client(socket: socket)
    _ = client.call("initialize", ["offsetEncodings": ["utf-8"], "client": ["name": "layoutctl"]])
    write(client.call("render", .object(params)), to: output)
}

/// Writes a `render` result's image to `output` and says what was written.
private func write(_ result: JSONValue, to output: String) {
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
}
