// libFuzzer target: one input → LayoutService, the server boundary that turns a JSON-RPC line
// into an answer (parse, decode, validate, lay out with the real engine and the pinned fonts,
// queries on retained layouts, encode). Built and run by scripts/fuzz (see Fuzz/README.md).
//
// Two modes, chosen by the first byte:
//   - first byte 0x00…0x07: "structured": the next bytes choose layout params (width, font,
//     language, detail, paragraph style, truncation, spans, insets, exclusions, scale, offset
//     encoding, plugins' detectors/attachments/decorations) and the rest of the input (at most
//     4 KB) is the `text`; then a `layout` with `retain: true` and follow-up queries on its
//     handle (hitTest, caret, rects, word, lineRange, selectedText, update, render, release)
//     plus `measure` and `boundaries`, each through `LayoutService.handle(message:session:)`.
//   - any other first byte: the whole input is one JSON-RPC line, given to
//     `LayoutService.route(line:session:)`, whose job is run synchronously here.
// Invariants (a failure traps, which libFuzzer reports as a crash): no trap anywhere; every
// answer is one line of JSON that is a valid JSON-RPC 2.0 response (or a batch of them, one
// per request that is not a notification), with the request's id, exactly one of `result` or
// `error`, an integer `code` and a string `message`; no `-32603` internal error; a `layout`
// result that is not truncated has lines that cover the text contiguously, with finite numbers.
import GlyphRaster
import LayoutEngine
import LayoutProtocol
import LayoutServer
#if canImport(Glibc)
import Glibc
#endif


func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

/// LAYOUTD_FUZZ_TRACE=1: print every request the structured mode sends (to turn an input into
/// JSON-RPC lines).
let traceRequests = getenv("LAYOUTD_FUZZ_TRACE") != nil

/// A line on standard error.
func note(_ message: String) {
    var bytes = Array("fuzz-service: \(message)\n".utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

/// The engine, configuration and plugins, made once per process (fonts are the slow part).
struct Setup: Sendable {
    let engine: TextLayoutEngine
    let configuration: ServerConfiguration
    let plugins: PluginSet

    static let shared = Setup()

    init() {
        Log.setMinimumLevel(.error)
        // The checkout: $LAYOUTD_FUZZ_ROOT (scripts/fuzz sets it), else two folders above this file.
        let root = environment("LAYOUTD_FUZZ_ROOT") ?? Files.directory(of: Files.directory(of: Files.directory(of: #filePath)))
        var configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(path: "\(root)/config/layoutd.json")
        } catch {
            note("\(error); using defaults with \(root)/config/fonts.conf")
            configuration = ServerConfiguration()
            configuration.fontConfig = "\(root)/config/fonts.conf"
        }
        // Small limits keep each run fast; the text limit sits inside what inputs can reach.
        configuration.maxTextLength = 4096
        configuration.maxRetainedLayouts = 8
        configuration.maxRetainedBytes = 8 << 20
        let fonts: FontSystem
        do { fonts = try FontSystem(fontConfigPath: configuration.fontConfig) } catch {
            fatalError("fuzz-service: cannot load the fonts of \(configuration.fontConfig ?? "(system)"): \(error)")
        }
        if fonts.fontCount == 0 { fatalError("fuzz-service: no fonts; run scripts/setup") }
        engine = TextLayoutEngine(fonts: fonts, maxTextLength: configuration.maxTextLength)
        // Plugins: the shared objects scripts/fuzz built with the sanitizers, when it did.
        if let folder = environment("LAYOUTD_FUZZ_PLUGINS"), !folder.isEmpty {
            var settings = configuration.plugins
            settings.builtin = false
            settings.folders = [folder]
            settings.probe = false
            // A slow plugin call must reach libFuzzer's -timeout (which saves the input), not
            // the guard's limit (which stops the call, leaks what the plugin allocated and
            // disables the plugin for the rest of the run).
            settings.callSeconds = 60
            let rasterizer = try? GlyphRasterizer()
            plugins = PluginSet.load(settings, executable: nil, rasterizer: rasterizer)
            for failure in plugins.failures { note("plugin refused: \(failure)") }
        } else {
            plugins = .empty
        }
        self.configuration = configuration
        note("\(fonts.fontCount) font faces from \(configuration.fontConfig ?? "(system)"); plugins: "
             + (plugins.plugins.isEmpty ? "none" : plugins.plugins.map(\.name).joined(separator: ", ")))
        // Warm the fallbacks of the common scripts, as layoutd does.
        _ = try? engine.layout(LayoutRequest(
            text: Array("Hello — Привет, مرحبا, שלום, नमस्ते, 你好, こんにちは, สวัสดี 😀".utf16), width: 200,
            font: FontDescriptor(family: configuration.defaultFamily, size: configuration.defaultSize)))
    }

    /// A service of its own per input (retained layouts and statistics start empty, so an
    /// input replays the same way), sharing the engine and its font caches.
    func service() -> LayoutService {
        LayoutService(engine: engine, configuration: configuration, plugins: plugins)
    }
}

// MARK: Checking answers

func finite(_ v: JSONValue?) -> Bool {
    if case .number(let d)? = v { return d.isFinite }
    return false
}

/// One response object: jsonrpc 2.0, an id, exactly one of result and error.
@discardableResult
func checkResponse(_ v: JSONValue, id expected: RPCId? = nil, context: @autoclosure () -> String) -> JSONValue? {
    guard case .object(let members) = v else { fatalError("fuzz invariant: a response that is not an object: \(context())") }
    check(v["jsonrpc"] == .string("2.0"), "response without jsonrpc 2.0: \(context())")
    check(members.filter { $0.0 == "id" }.count == 1, "response without exactly one id: \(context())")
    // (An integer id beyond 2^53 comes back as its digits: JSON text that reads as a number.)
    switch v["id"] {
    case .string?, .number?, .null?: break
    case let id? where id.typeName == "number": break
    default: fatalError("fuzz invariant: response id of the wrong type: \(context())")
    }
    if let expected { check(v["id"] == expected.json, "response id differs from the request's: \(context())") }
    let result = v["result"], error = v["error"]
    check((result == nil) != (error == nil), "response must hold exactly one of result and error: \(context())")
    if let error {
        check(error.isObject, "error is not an object: \(context())")
        check(error["code"]?.intValue != nil, "error code is not an integer: \(context())")
        check(error["message"]?.stringValue != nil, "error message is not a string: \(context())")
        check(error["code"]?.intValue != RPCErrorCode.internalError.rawValue,
              "internal error answered: \(error["message"]?.stringValue ?? "") for \(context())")
        return nil
    }
    return result
}

/// The bytes a route produced: one line of JSON.
func parseAnswer(_ bytes: [UInt8], context: @autoclosure () -> String) -> JSONValue {
    check(!bytes.contains(0x0A), "answer holds a raw newline: \(context())")
    // A plugin call the guard stopped (a crash caught by its signal handler, or a call past
    // its time limit) only shows as a warning: make it a finding.
    let text = String(decoding: bytes, as: UTF8.self)
    check(!text.contains("disabled until the next reload"), "a plugin call was aborted: \(text.prefix(600)) for \(context())")
    do { return try JSONParser.parse(bytes) } catch {
        fatalError("fuzz invariant: answer is not JSON (\(error)): \(context())")
    }
}

/// Lines of an untruncated layout result cover the text: contiguous, from 0 to `length`.
func checkLayoutResult(_ result: JSONValue, textLength: Int, context: @autoclosure () -> String) {
    guard case .array(let lines)? = result["lines"] else { fatalError("fuzz invariant: layout result without lines: \(context())") }
    check(finite(result["size"]?["width"]) && finite(result["size"]?["height"]), "layout size not finite: \(context())")
    for line in lines {
        for key in ["start", "end", "x", "y", "width", "height", "baseline", "ascent", "descent"] {
            check(finite(line[key]), "line \(key) missing or not finite: \(context())")
        }
        check(line["start"]!.intValue! <= line["end"]!.intValue!, "line ends before it starts: \(context())")
    }
    guard result["truncated"] == .bool(false), result["diff"] == nil else { return }
    check(!lines.isEmpty, "no lines: \(context())")
    check(lines.first!["start"]?.intValue == 0, "first line does not start at 0: \(context())")
    for (a, b) in zip(lines, lines.dropFirst()) {
        check(a["end"]?.intValue == b["start"]?.intValue, "lines are not contiguous: \(context())")
    }
    check(lines.last!["end"]?.intValue == textLength, "lines end at \(lines.last!["end"].map(JSONWriter.string) ?? "?"), not at the text's end \(textLength): \(context())")
}

// MARK: Mode A: one JSON-RPC line through route(line:session:)

func runLine(_ line: [UInt8]) {
    let service = Setup.shared.service()
    let session = Session()
    let context = { String(decoding: line.prefix(300), as: UTF8.self) }
    let answer: [UInt8]?
    switch service.route(line: line, session: session) {
    case .reply(let bytes): answer = bytes
    case .job(let job, _): answer = job()
    case .ordered(let job): answer = job()
    }
    // What the line should get back, from an independent reading of it.
    let message = try? JSONParser.parse(line)
    guard let answer else {
        // No answer: a blank line, a notification, or a batch of only notifications.
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return }
        guard let message else { fatalError("fuzz invariant: unparsable line got no answer: \(context())") }
        let members: [JSONValue] = message.arrayValue ?? [message]
        check(!members.isEmpty, "empty batch got no answer: \(context())")
        for m in members {
            guard case .success(let r) = RPCRequest.decode(m), r.id == nil else {
                fatalError("fuzz invariant: a request that is not a notification got no answer: \(context())")
            }
        }
        return
    }
    let value = parseAnswer(answer, context: context())
    guard let message else {
        checkResponse(value, id: .null, context: context())
        check(value["error"]?["code"]?.intValue == RPCErrorCode.parseError.rawValue, "unparsable line not answered -32700: \(context())")
        return
    }
    if case .array(let batch) = message, !batch.isEmpty {
        guard case .array(let responses) = value else { fatalError("fuzz invariant: a batch answered with no array: \(context())") }
        let expected = batch.filter { if case .success(let r) = RPCRequest.decode($0), r.id == nil { false } else { true } }
        check(responses.count == expected.count, "batch of \(batch.count) got \(responses.count) responses, expected \(expected.count): \(context())")
        for (response, request) in zip(responses, expected) {
            let id: RPCId? = if case .success(let r) = RPCRequest.decode(request) { r.id } else { nil }
            checkResponse(response, id: id, context: context())
        }
        return
    }
    let id: RPCId = switch RPCRequest.decode(message) {
    case .success(let r): r.id ?? .null
    case .failure(let f): f.id
    }
    checkResponse(value, id: id, context: context())
}

// MARK: Mode B: structured layout params and queries

/// Reads choices from the input's header; past its end, zeros.
struct Bytes {
    let data: UnsafeBufferPointer<UInt8>
    var at = 0
    mutating func byte() -> Int {
        defer { at += 1 }
        return at < data.count ? Int(data[at]) : 0
    }
    mutating func word() -> Int { byte() << 8 | byte() }
    mutating func bool() -> Bool { byte() & 1 == 1 }
    mutating func pick<T>(_ choices: [T]) -> T { choices[byte() % choices.count] }
    /// One of a few interesting numbers, or one made from two bytes.
    mutating func number(scale: Double) -> Double {
        let b = byte()
        switch b % 16 {
        case 0: return 0
        case 1: return 1e-9
        case 2: return 1e9
        case 3: return -Double(word())
        default: return Double(word()) * scale / 256
        }
    }
}

struct Structured {
    var bytes: Bytes
    let text: String
    let encoding: OffsetEncoding
    var nextId = 1

    init(_ data: UnsafeBufferPointer<UInt8>) {
        // 40 bytes of choices, then the text.
        let header = min(data.count, 41)
        bytes = Bytes(data: UnsafeBufferPointer(rebasing: data[1..<max(1, header)]))
        text = String(decoding: UnsafeBufferPointer(rebasing: data[header...].prefix(4096)), as: UTF8.self)
        encoding = [OffsetEncoding.utf16, .utf8, .utf32][Int(data[0]) % 3]
    }

    var length: Int {
        switch encoding {
        case .utf8: text.utf8.count
        case .utf16: text.utf16.count
        case .utf32: text.unicodeScalars.count
        }
    }

    /// An offset mostly inside the text, sometimes just past it.
    mutating func offset() -> Int { bytes.word() % (length + 2) }

    mutating func font() -> JSONValue {
        var members: [(String, JSONValue)] = []
        let family = bytes.pick([nil, "sans-serif", "serif", "monospace", "emoji", "Noto Sans", "Inter", "DejaVu Sans Mono",
                                 "No Such Font", "Noto Sans Arabic, serif", "WenQuanYi Micro Hei"] as [String?])
        if let family { members.append(("family", .string(family))) }
        let size = bytes.byte()
        if size % 4 != 0 { members.append(("size", .number([0.01, 0.5, 8, 16, 72, 300, 10_000][size % 7]))) }
        let w = bytes.byte()
        if w % 3 == 0 { members.append(("weight", .number(Double(1 + w * 4 % 1000)))) }
        if bytes.byte() % 4 == 0 { members.append(("style", .string(bytes.pick(["normal", "italic", "oblique"])))) }
        let f = bytes.byte()
        if f % 5 == 0 { members.append(("features", ["kern": .bool(f & 8 == 0), "liga": false, "smcp": true, "salt": 2])) }
        if f % 7 == 0 { members.append(("variations", ["wght": .number(Double(100 + f * 3)), "wdth": 75])) }
        return .object(members)
    }

    mutating func spanAttributes() -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        let a = bytes.byte(), b = bytes.byte()
        if a & 1 != 0 { members.append(("font", font())) }
        if a & 2 != 0 { members.append(("color", .string(bytes.pick(["#123", "#1a73e8", "#1a73e880"])))) }
        if a & 4 != 0 { members.append(("underline", bytes.pick([.bool(true), "double", ["style": "thick", "color": "#f00"]] as [JSONValue]))) }
        if a & 8 != 0 { members.append(("letterSpacing", .number(bytes.number(scale: 0.1) - 20))) }
        if a & 16 != 0 { members.append(("baselineOffset", .number(bytes.number(scale: 0.1) - 20))) }
        if a & 32 != 0 { members.append(("link", "https://example.com")) }
        if a & 64 != 0 { members.append(("data", ["id": .number(Double(b))])) }
        if a & 128 != 0 {
            members.append(("attachment", ["width": .number(bytes.number(scale: 1)), "ascent": .number(Double(b % 40)),
                                           "descent": .number(Double(b % 7)), "value": "img"]))
        }
        if b & 1 != 0 { members.append(("strikethrough", true)) }
        if b & 2 != 0 { members.append(("background", "#eeeeee")) }
        return members
    }

    mutating func layoutParams() -> [(String, JSONValue)] {
        var p: [(String, JSONValue)] = [("text", .string(text))]
        let w = bytes.byte()
        switch w % 8 {
        case 0: break   // no wrapping
        case 1: p.append(("width", 0))
        case 2: p.append(("width", .number(Double(w))))
        case 3: p.append(("width", 1e9))
        case 4: p.append(("width", .null))
        default: p.append(("width", .number(Double(bytes.word() % 2000) / 4)))
        }
        if bytes.bool() { p.append(("font", font())) }
        let language = bytes.pick([nil, "en", "ja", "th", "ar", "he", "zh-Hans", "hi", "km", "my", "de", "tr", "x-bogus"] as [String?])
        if let language { p.append(("language", .string(language))) }
        p.append(("detail", .string(bytes.pick(["lines", "runs", "glyphs"]))))
        let g = bytes.byte()
        if g & 1 != 0 {
            var paragraph: [(String, JSONValue)] = []
            paragraph.append(("align", .string(bytes.pick(ParagraphParams.aligns))))
            paragraph.append(("direction", .string(bytes.pick(LayoutParams.directions))))
            paragraph.append(("wrap", .string(bytes.pick(LayoutParams.wraps))))
            let h = bytes.byte()
            if h & 1 != 0 { paragraph.append(("lineSpacing", .number(Double(h)))) }
            if h & 2 != 0 { paragraph.append(("lineHeight", h & 4 != 0 ? .number(Double(h % 30) / 10 + 0.01)
                                               : ["multiple": 1.5, "minimum": .number(Double(h % 20)), "maximum": 40])) }
            if h & 8 != 0 { paragraph.append(("paragraphSpacing", 6)); paragraph.append(("paragraphSpacingBefore", 3)) }
            if h & 16 != 0 {
                paragraph.append(("headIndent", .number(Double(bytes.byte()))))
                paragraph.append(("firstLineIndent", .number(Double(bytes.byte()) - 128)))
                paragraph.append(("tailIndent", .number(Double(bytes.byte()))))
            }
            if h & 32 != 0 {
                paragraph.append(("tabStops", [["location": .number(Double(bytes.byte()))],
                                               ["location": .number(Double(bytes.word() % 600)), "alignment": .string(bytes.pick(ParagraphParams.tabAlignments))]]))
                paragraph.append(("defaultTabInterval", .number(Double(bytes.byte() % 64) + 0.5)))
            }
            if h & 64 != 0 {
                paragraph.append(("maxLines", .number(Double(bytes.byte() % 5))))
                var truncation: [(String, JSONValue)] = [("mode", .string(bytes.pick(TruncationParams.modes)))]
                let t = bytes.byte()
                if t & 1 != 0 { truncation.append(("token", .string(["", "… more", "‥", "→ ﷺ", "😀‍👩"][t % 5]))) }
                if t & 2 != 0 { truncation.append(("style", ["color": "#1a73e8", "font": ["size": 30]])) }
                paragraph.append(("truncation", .object(truncation)))
            }
            p.append(("paragraph", .object(paragraph)))
        }
        if g & 2 != 0 { p.append(("direction", .string(bytes.pick(LayoutParams.directions)))) }
        let spanCount = bytes.byte() % 6
        if spanCount > 0 {
            var spans: [JSONValue] = []
            for _ in 0..<spanCount {
                let a = offset(), b = offset()
                spans.append(.object([("start", .number(Double(min(a, b)))), ("end", .number(Double(max(a, b))))] + spanAttributes()))
            }
            p.append(("spans", .array(spans)))
        }
        if g & 4 != 0 {
            p.append(("insets", ["top": .number(Double(bytes.byte())), "left": .number(Double(bytes.byte())),
                                 "bottom": 1, "right": .number(Double(bytes.byte()))]))
        }
        if g & 8 != 0 {
            var rects: [JSONValue] = []
            for _ in 0..<(1 + bytes.byte() % 3) {
                rects.append(["x": .number(Double(bytes.word() % 400) - 50), "y": .number(Double(bytes.byte())),
                              "width": .number(Double(bytes.word() % 400)), "height": .number(Double(bytes.byte()))])
            }
            p.append(("exclusions", .array(rects)))
        }
        if g & 16 != 0 { p.append(("scale", .number([0.01, 0.5, 2, 100][bytes.byte() % 4]))) }
        if g & 32 != 0 {
            p.append(("detectors", bytes.pick([["url", "email", "mention", "hashtag", "phone"], ["ticket"],
                                               [["kind": "literal", "table": ["ab": "x", "a": "y", "😀": "z"]]]] as [JSONValue])))
        }
        if g & 64 != 0 { p.append(("attachments", true)) }
        if g & 128 != 0 { p.append(("decorations", true)) }
        return p
    }

    /// One request through handle(message:session:); its checked result (nil for an error).
    mutating func call(_ service: LayoutService, _ session: Session, _ method: String, _ params: [(String, JSONValue)]) -> JSONValue? {
        let id = RPCId.number(Double(nextId))
        nextId += 1
        let request: JSONValue = ["jsonrpc": "2.0", "id": id.json, "method": .string(method), "params": .object(params)]
        let context = { "\(method) \(JSONWriter.string(request).prefix(8192))" }
        if traceRequests { note("request: \(JSONWriter.string(request))") }
        guard let response = service.handle(message: request, session: session) else {
            fatalError("fuzz invariant: a request with an id got no answer: \(context())")
        }
        // As the server sends it: serialized, one line, parsed back.
        let value = parseAnswer(JSONWriter.serialize(response), context: context())
        return checkResponse(value, id: id, context: context())
    }

    mutating func run() {
        let service = Setup.shared.service()
        let session = Session()
        _ = call(service, session, "initialize", [("offsetEncodings", [.string(encoding.rawValue)])])
        var params = layoutParams()
        params.append(("retain", true))
        let context = { [text] in "text \(JSONWriter.string(.string(String(text.prefix(200)))))" }
        guard let result = call(service, session, "layout", params) else { return }
        checkLayoutResult(result, textLength: length, context: context())
        guard let handle = result["handle"] else { fatalError("fuzz invariant: retained layout without a handle: \(context())") }
        let queries = bytes.byte() | bytes.byte() << 8
        if queries & 1 != 0 {
            _ = call(service, session, "hitTest", [("handle", handle), ("x", .number(bytes.number(scale: 1) - 20)),
                                                   ("y", .number(bytes.number(scale: 0.5) - 10))])
        }
        if queries & 2 != 0 {
            _ = call(service, session, "caret", [("handle", handle), ("index", .number(Double(offset()))),
                                                 ("affinity", .string(bytes.pick(["downstream", "upstream"])))])
        }
        if queries & 4 != 0 {
            let a = offset(), b = offset()
            _ = call(service, session, "rects", [("handle", handle), ("start", .number(Double(a))), ("end", .number(Double(b)))])
        }
        if queries & 8 != 0 { _ = call(service, session, "word", [("handle", handle), ("index", .number(Double(offset())))]) }
        if queries & 16 != 0 {
            _ = call(service, session, "lineRange", [("handle", handle), ("index", .number(Double(offset()))),
                                                     ("affinity", .string(bytes.pick(["downstream", "upstream"])))])
        }
        if queries & 32 != 0 {
            let layouts: JSONValue = [["handle": handle], ["handle": handle, "origin": ["x": 0, "y": 100]]]
            let a = offset(), b = offset()
            _ = call(service, session, bytes.bool() ? "selectedText" : "rects",
                     [("layouts", layouts), ("start", ["layout": 0, "index": .number(Double(a))]),
                      ("end", ["layout": .number(Double(bytes.byte() % 2)), "index": .number(Double(b))])])
        }
        if queries & 64 != 0 {
            _ = call(service, session, "boundaries", [("text", .string(text)), ("kind", .string(bytes.pick(BoundariesParams.kinds))),
                                                      ("language", .string(bytes.pick(["en", "th", "ja", "km"])))])
        }
        if queries & 128 != 0 { _ = call(service, session, "measure", params.filter { $0.0 != "retain" }) }
        if queries & 256 != 0 {
            // Edits made of pieces of the text itself, at offsets that may split characters.
            var edits: [JSONValue] = []
            for _ in 0..<(1 + bytes.byte() % 3) {
                let a = offset(), b = offset()
                let pieces = ["", "\n", "x y ", "\u{200F}א\u{202E}b", "😀\u{FE0F}", String(text.prefix(bytes.byte() % 16))]
                edits.append(["start": .number(Double(min(a, b))), "end": .number(Double(max(a, b))),
                              "text": .string(pieces[bytes.byte() % pieces.count])])
            }
            if let updated = call(service, session, "update", [("handle", handle), ("edits", .array(edits)),
                                                               ("result", .string(bytes.bool() ? "changed" : "full"))]) {
                check(updated["diff"] != nil, "update result without diff: \(context())")
                _ = call(service, session, "hitTest", [("handle", handle), ("x", 10), ("y", 10)])
            }
        }
        if queries & 512 != 0, !service.plugins.plugins.isEmpty {
            let a = offset(), b = offset()
            _ = call(service, session, "render", [("handle", handle), ("format", .string(bytes.pick(["svg", "png"]))),
                                                  ("scale", .number([0.1, 1, 2][bytes.byte() % 3])), ("overlay", .bool(bytes.bool())),
                                                  ("selection", ["start": .number(Double(min(a, b))), "end": .number(Double(max(a, b)))])])
        }
        if queries & 1024 != 0 { _ = call(service, session, "stats", []) }
        _ = call(service, session, "release", [("handle", handle)])
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = Setup.shared
    let input = UnsafeBufferPointer(start: data, count: size)
    if size > 0, data[0] < 0x08 {
        var structured = Structured(input)
        structured.run()
    } else {
        runLine(Array(input.prefix(16 << 10)))
    }
    return 0
}
