// libFuzzer target: bytes from a socket → LineFramer and MessageFramer (both framings) →
// JSONParser → JSONWriter round trip → RPCRequest.decode → every params decoder. Built and
// run by scripts/fuzz (see Fuzz/README.md).
//
// The input is the byte stream a client sends. It is fed to the framers in chunks whose
// sizes, and the framers' cap, come from a hash of the input, so one input always replays the
// same way. Invariants checked (a failure traps, which libFuzzer reports as a crash):
//   - the line frames are exactly those of a reference split at "\n" (a line longer than the
//     cap is one `.oversized`, a final unterminated line longer than the cap too), no line is
//     longer than the cap, and no more than the cap stays buffered between reads;
//   - MessageFramer on the raw stream (which picks the LSP header framing when it starts
//     with `Content-Length:` or `Content-Type:`) gives the same frames in chunks as all at
//     once — the line frames when it picks lines — no message over the cap, nothing after
//     an `.oversized` or `.malformed`, at most cap + the header bound buffered;
//   - the stream's lines sent as LSP messages (`Content-Length: N\r\n\r\n` + line) come
//     back as exactly those lines, up to the first over the cap, which is `.oversized`;
//   - a line JSONParser accepts is valid UTF-8 with no raw control character outside white
//     space; JSONWriter writes it on one line, and that parses back to an equal value and
//     re-serializes to the same bytes; a rejected line's error offset lies inside the line;
//   - RPCRequest.decode and the params decoders never trap; a decoded request's `json`
//     decodes to the same request; LayoutParams.json reads back as the same params.
import LayoutProtocol
import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif


/// SplitMix64: chunk sizes and the cap, from the input's hash.
struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

func fnv1a(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var h: UInt64 = 0xCBF2_9CE4_8422_2325
    for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
    return h
}

/// What the framer must produce for `stream` with `cap`, by a plain split at "\n".
func referenceFrames(_ stream: UnsafeBufferPointer<UInt8>, cap: Int) -> (frames: [LineFramer.Frame], pending: Int) {
    var frames: [LineFramer.Frame] = []
    var start = 0
    for i in 0..<stream.count where stream[i] == 0x0A {
        let length = i - start
        if length > cap {
            frames.append(.oversized)
        } else {
            var line = Array(stream[start..<i])
            if line.last == 0x0D { line.removeLast() }
            frames.append(.line(line))
        }
        start = i + 1
    }
    let rest = stream.count - start
    if rest > cap { frames.append(.oversized); return (frames, 0) }
    return (frames, rest)
}

/// Every params decoder the protocol has, on `params` (errors are expected; traps are not).
func decodeParams(_ params: JSONValue?) {
    if let p = try? LayoutParams(json: params) {
        // What `json` keeps must read back the same.
        let again: LayoutParams
        do { again = try LayoutParams(json: p.json) } catch {
            fatalError("fuzz invariant: LayoutParams.json does not read back: \(error) for \(JSONWriter.string(p.json))")
        }
        check(again.text == p.text && again.width == p.width && again.font == p.font && again.language == p.language
              && again.detail == p.detail && again.paragraph.direction == p.paragraph.direction
              && again.paragraph.wrap == p.paragraph.wrap,
              "LayoutParams.json reads back different params: \(JSONWriter.string(p.json))")
        _ = JSONWriter.serialize(p.json)
    }
    _ = try? BoundariesParams(json: params)
    _ = try? InitializeParams(json: params).json
    _ = try? RenderParams(json: params)
    if let reader = try? ParamReader(params) {
        _ = try? FontSpec(reader)
        _ = try? ParagraphParams(reader)
        _ = try? SpanAttributes(reader)
        _ = try? InsetsParams(reader)
        _ = try? RectParams(reader)
        if let font = try? reader.object("font") { _ = try? FontSpec(font) }
        if let paragraph = try? reader.object("paragraph") { _ = try? ParagraphParams(paragraph) }
        if case .array(let spans)? = reader.member("spans") {
            for span in spans.prefix(64) {
                if let r = try? ParamReader(span) { _ = try? SpanAttributes(r) }
            }
        }
    }
}

/// One framed line through the protocol's decoders.
func handleLine(_ line: [UInt8]) {
    let value: JSONValue
    do {
        value = try JSONParser.parse(line)
    } catch {
        check(error.offset >= 0 && error.offset <= line.count, "parse error offset \(error.offset) outside a \(line.count)-byte line")
        return
    }
    // Accepted: the line must have been UTF-8, with control characters only as white space.
    check(String(validating: line, as: UTF8.self) != nil, "JSONParser accepted invalid UTF-8")
    check(line.allSatisfy { $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D },
          "JSONParser accepted a raw control character")
    let written = JSONWriter.serialize(value)
    check(!written.contains(0x0A), "JSONWriter wrote a raw newline")
    let reparsed: JSONValue
    do { reparsed = try JSONParser.parse(written) } catch {
        fatalError("fuzz invariant: JSONWriter output does not parse: \(error): \(String(decoding: written, as: UTF8.self))")
    }
    check(reparsed == value, "JSONWriter output parses to a different value: \(String(decoding: written, as: UTF8.self))")
    check(JSONWriter.serialize(reparsed) == written, "JSONWriter is not stable over a round trip")

    // JSON-RPC: a request, or a batch of them (members decoded one by one).
    let messages: [JSONValue]
    if case .array(let batch) = value { messages = Array(batch.prefix(256)) } else { messages = [value] }
    for message in messages {
        switch RPCRequest.decode(message) {
        case .success(let request):
            switch RPCRequest.decode(request.json) {
            case .success(let again):
                check(again.id == request.id && again.method == request.method && again.params == request.params,
                      "RPCRequest.json decodes to a different request")
            case .failure(let failure):
                fatalError("fuzz invariant: RPCRequest.json does not decode: \(failure.error.message)")
            }
            _ = JSONWriter.serialize(RPCResponse.success(id: request.id ?? .null, result: .null))
            decodeParams(request.params)
        case .failure(let failure):
            _ = JSONWriter.serialize(RPCResponse.failure(id: failure.id, error: failure.error))
        }
        if case .object = message { decodeParams(message) }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let stream = UnsafeBufferPointer(start: data, count: size)
    var random = SplitMix(state: fnv1a(stream))
    // Mostly a cap above any input (every line parsed), sometimes a small one (oversized paths).
    let caps = [1 << 20, 1 << 20, 1 << 20, 4096, 256, 16, 1, 0]
    let cap = caps[random.below(caps.count)]
    let expected = referenceFrames(stream, cap: cap)

    var framer = LineFramer(maxLineLength: cap)
    var frames: [LineFramer.Frame] = []
    var offset = 0
    var useRaw = false
    repeat {
        // Chunk sizes: mostly small (partial lines), sometimes large (many lines at once).
        let limit = random.below(4) == 0 ? 4096 : 17
        let n = min(size - offset, 1 + random.below(limit))
        if useRaw {
            framer.append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: stream[offset..<offset + n])))
        } else {
            framer.append(Array(stream[offset..<offset + n]))
        }
        useRaw.toggle()
        offset += n
        while let frame = framer.nextFrame() {
            if case .line(let line) = frame { check(line.count <= cap, "a \(line.count)-byte line passed the \(cap)-byte cap") }
            frames.append(frame)
        }
        check(framer.pendingCount <= cap, "\(framer.pendingCount) bytes buffered past the \(cap)-byte cap")
    } while offset < size

    check(frames.count == expected.frames.count, "\(frames.count) frames, expected \(expected.frames.count) (cap \(cap))")
    for (got, want) in zip(frames, expected.frames) {
        check(got == want, "frame differs from a plain split at newlines (cap \(cap))")
    }
    check(framer.pendingCount == expected.pending, "pending \(framer.pendingCount), expected \(expected.pending)")

    for case .line(let line) in frames { handleLine(line) }
    checkMessageFramer(stream, cap: cap, lineFrames: expected.frames, random: &random)
    checkHeaderFraming(stream, cap: cap, random: &random)
    return 0
}

/// Feeds `stream` to a new MessageFramer in chunks (or at once, `chunked` false) and takes
/// every frame, checking the cap and the buffered bytes as it goes.
func framesOfMessageFramer(_ stream: [UInt8], cap: Int, framing: MessageFraming?, chunked: Bool,
                           random: inout SplitMix) -> (frames: [MessageFramer.Frame], framer: MessageFramer) {
    var framer = framing.map { MessageFramer(maxMessageLength: cap, framing: $0) } ?? MessageFramer(maxMessageLength: cap)
    var frames: [MessageFramer.Frame] = []
    var offset = 0
    repeat {
        let n = chunked ? min(stream.count - offset, 1 + random.below(random.below(4) == 0 ? 4096 : 17)) : stream.count
        framer.append(Array(stream[offset..<offset + n]))
        offset += n
        while let frame = framer.nextFrame() {
            if case .message(let bytes) = frame { check(bytes.count <= cap, "a \(bytes.count)-byte message passed the \(cap)-byte cap") }
            frames.append(frame)
        }
        check(framer.pendingCount <= cap + HeaderFramer.maxHeaderBytes + 4, "\(framer.pendingCount) bytes buffered past the bounds")
    } while offset < stream.count
    return (frames, framer)
}

/// The raw stream through MessageFramer: chunking does not change the frames; in the line
/// framing they are the reference lines; nothing follows a frame that ends the stream.
func checkMessageFramer(_ input: UnsafeBufferPointer<UInt8>, cap: Int, lineFrames: [LineFramer.Frame], random: inout SplitMix) {
    let stream = Array(input)
    let (chunked, framer) = framesOfMessageFramer(stream, cap: cap, framing: nil, chunked: true, random: &random)
    let (whole, _) = framesOfMessageFramer(stream, cap: cap, framing: nil, chunked: false, random: &random)
    check(chunked == whole, "MessageFramer's frames depend on how the stream was cut (cap \(cap))")
    if framer.framing == .lines {
        let expected = lineFrames.map { frame -> MessageFramer.Frame in
            if case .line(let bytes) = frame { return .message(bytes) } else { return .oversized }
        }
        check(chunked == expected, "MessageFramer's line frames differ from LineFramer's")
    } else if let end = chunked.firstIndex(where: { if case .message = $0 { false } else { true } }) {
        check(end == chunked.count - 1, "a header-framed stream gave frames after \(chunked[end])")
    }
    for case .message(let bytes) in chunked where framer.framing == .headers { handleLine(bytes) }
}

/// The stream's lines sent as LSP messages, with a Content-Type field now and then, come
/// back as those lines, up to the first over the cap.
func checkHeaderFraming(_ input: UnsafeBufferPointer<UInt8>, cap: Int, random: inout SplitMix) {
    let bodies = input.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(512).map { Array($0) }
    guard !bodies.isEmpty else { return }
    var stream: [UInt8] = []
    var expected: [MessageFramer.Frame] = []
    for body in bodies {
        let type = random.below(3) == 0 ? "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" : ""
        let name = random.below(4) == 0 ? "content-length" : "Content-Length"
        stream += Array("\(name): \(body.count)\r\n\(type)\r\n".utf8) + body
        if body.count > cap { expected.append(.oversized); break }
        expected.append(.message(body))
    }
    let (frames, framer) = framesOfMessageFramer(stream, cap: cap, framing: nil, chunked: true, random: &random)
    check(framer.framing == .headers, "a stream of LSP messages was not read in the header framing")
    check(frames == expected, "LSP-framed lines came back different (cap \(cap))")
}
