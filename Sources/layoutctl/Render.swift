import LayoutClient
import LayoutProtocol
#if canImport(Glibc)
import Glibc
#endif

/// `render`: TEXT laid out and drawn by the render plugin into a PNG or SVG file.
func render(_ arguments: [String], socket: String?) async {
    var arguments = arguments
    var picture = RenderParams(format: "png")
    var layoutParams = LayoutParams(text: "")
    var output: String?
    var text: String?
    func value(_ option: String) -> String {
        guard !arguments.isEmpty else { usageError("\(option) needs a value", command: "render") }
        return arguments.removeFirst()
    }
    while !arguments.isEmpty {
        let a = arguments.removeFirst()
        if readLayoutOption(a, into: &layoutParams, command: "render", value: value) { continue }
        switch a {
        case "--detect": layoutParams.detectors = value(a).split(separator: ",").map { DetectorRequest(kind: String($0)) }
        case "--attachments": layoutParams.attachments = AttachmentProvidersRequest()
        case "-o", "--output": output = value(a)
        case "-": text = readStandardInput()
        default:
            if readPictureOption(a, into: &picture, value: value) { continue }
            if a.hasPrefix("-") { usageError("unknown option \(a)", command: "render") }
            text = a
        }
    }
    guard let text else { usageError("render needs TEXT (or - for standard input)", command: "render") }
    guard let output else { usageError("render needs -o FILE", command: "render") }
    layoutParams.text = text
    picture.layout = layoutParams
    // Offsets in UTF-8 bytes, as `layout` prints them.
    let daemon = Daemon(socket: socket, offsetEncoding: .utf8)
    save(await daemon.run { client throws(LayoutClientError) in try await client.render(picture) }, to: output)
}

/// Reads one of the picture's options (`--format`, `--scale`, `--margin`, `--overlay`,
/// `--highlight`, `--selection`, `--background`) into `picture`; false for any other. The
/// last of one option given wins, but `--highlight`, which may be given many times.
private func readPictureOption(_ option: String, into picture: inout RenderParams, value: (String) -> String) -> Bool {
    func number(_ what: String) -> Double {
        guard let v = Double(value(option)) else { usageError("\(option) needs \(what)", command: "render") }
        return v
    }
    switch option {
    case "--format": picture.format = value(option)
    case "--scale": picture.scale = number("a number")
    case "--margin": picture.margin = number("a number of points")
    case "--overlay": picture.overlay = true
    case "--highlight":
        let (start, end, state) = range(option, value(option))
        picture.highlights.append(HighlightParams(start: start, end: end, state: state))
    case "--selection":
        let (start, end, _) = range(option, value(option))
        picture.selection = (start, end)
    case "--background":
        let color = value(option)
        picture.background = color == "transparent" ? nil : color
    default: return false
    }
    return true
}

/// `START:END[:STATE]` → the offsets and the index of the state in `HighlightParams.states`.
private func range(_ option: String, _ v: String) -> (Int, Int, Int) {
    let parts = v.split(separator: ":").map(String.init)
    guard parts.count >= 2, parts.count <= 3, let a = Int(parts[0]), let b = Int(parts[1]) else {
        usageError("\(option) needs START:END, got \(v)", command: "render")
    }
    guard parts.count == 3 else { return (a, b, 0) }
    guard let state = HighlightParams.states.firstIndex(of: parts[2]) else {
        usageError("\(option)'s state must be one of \(HighlightParams.states.joined(separator: ", ")), got \(parts[2])", command: "render")
    }
    return (a, b, state)
}

/// Writes a `render` result's image to `output` and says what was written.
private func save(_ result: RenderResult, to output: String) {
    let bytes: [UInt8]
    if result.format == "png" {
        guard let decoded = Base64.decode(result.data) else { fail("the PNG data is not valid base64") }
        bytes = decoded
    } else {
        bytes = Array(result.data.utf8)
    }
    guard let file = fopen(output, "wb") else { fail("cannot write \(output): \(String(cString: strerror(errno)))") }
    let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
    guard written == bytes.count else { fail("cannot write \(output): short write") }
    let size = "\(JSONWriter.string(.number(result.width))) × \(JSONWriter.string(.number(result.height)))"
    print("\(output): \(result.format.uppercased()) \(size)\(result.format == "png" ? " pixels" : " points"), \(bytes.count) bytes")
}
