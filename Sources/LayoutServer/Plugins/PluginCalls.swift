import CLayoutPlugin
import CPluginGuard
import LayoutProtocol
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A plugin call that returned an error (its message, or what the host saw).
struct PluginCallFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A link a detector found, checked: inside the text, on UTF-8 character boundaries.
struct DetectedLink: Sendable, Equatable {
    var start: Int
    var end: Int
    var kind: String
    var value: String?
}

/// An inline object a provider found, checked: range as for links, sizes finite and ≥ 0.
struct ProvidedAttachment: Sendable, Equatable {
    var start: Int
    var end: Int
    var width: Double
    var ascent: Double
    var descent: Double
    var value: String?
}

/// A decoration a renderer returned for a line, checked: finite numbers, a known shape.
struct LineDecoration: Sendable, Equatable {
    var shape: String
    var color: UInt32
    var rect: (x: Double, y: Double, width: Double, height: Double)
    var radius: Double
    var line: (x0: Double, y0: Double, x1: Double, y1: Double)
    var thickness: Double
    var role: String?

    static func == (a: LineDecoration, b: LineDecoration) -> Bool {
        a.shape == b.shape && a.color == b.color && a.rect == b.rect && a.radius == b.radius && a.line == b.line
            && a.thickness == b.thickness && a.role == b.role
    }
}

/// What a sink collects during one call; reached from the C sink through its context.
private final class Collector<T> {
    var items: [T] = []
    var dropped: [String] = []
    /// The kinds results may name (link detectors).
    var kinds: [String] = []
    let text: [UInt8]
    let limit: Int
    init(text: [UInt8], limit: Int) {
        self.text = text
        self.limit = limit
    }

    /// Why [start, end) is not a valid range of the text, or nil.
    func rangeProblem(_ start: UInt32, _ end: UInt32) -> String? {
        let s = Int(start), e = Int(end)
        guard s < e else { return "empty or reversed range [\(s), \(e))" }
        guard e <= text.count else { return "range [\(s), \(e)) past the end of the text (\(text.count) bytes)" }
        func boundary(_ i: Int) -> Bool { i == text.count || text[i] & 0xC0 != 0x80 }
        guard boundary(s), boundary(e) else { return "range [\(s), \(e)) splits a UTF-8 character" }
        return nil
    }

    /// How many results were dropped; the first few reasons are kept for the log (a plugin
    /// emitting without end must not grow the host's memory with them).
    var droppedCount = 0
    func drop(_ why: String) {
        droppedCount += 1
        if dropped.count < 8 { dropped.append(why) }
    }
    var full: Bool { items.count >= limit }
}

/// A C string from a plugin, bounded (64 KiB), invalid UTF-8 repaired; nil for NULL.
private func pluginString(_ p: UnsafePointer<CChar>?) -> String? {
    guard let p else { return nil }
    let length = strnlen(p, 65_536)
    return String(decoding: UnsafeRawBufferPointer(start: p, count: length), as: UTF8.self)
}

extension LoadedPlugin {
    /// Most results one call may return; the rest are dropped with a log line.
    static let maxResults = 100_000

    /// Logs (once per call) the results dropped because they broke the ABI's rules.
    private func report<T>(_ collector: Collector<T>, call: String) {
        guard !collector.dropped.isEmpty else { return }
        dropped.add(collector.droppedCount, ordering: .relaxed)
        Log.warning("plugin \(name): dropped \(collector.droppedCount) invalid result(s) of \(call); first: \(collector.dropped[0])")
    }

    /// A call stopped by the guard: the plugin crashed or ran past `callSeconds`. It is
    /// disabled for good (its state may be broken): later calls fail at once, and it is
    /// neither finalized nor unloaded. A reload loads (and probes) it afresh.
    private func aborted(_ call: String, signal: Int32) -> PluginCallFailure {
        failedCalls.add(1, ordering: .relaxed)
        let what = signal == layoutd_guard_timeout_signal()
            ? "ran past the \(callSeconds) s limit in \(call) and was stopped"
            : "crashed in \(call) (signal \(signal), \(String(cString: strsignal(signal))))"
        let reason = "plugin \(name) \(what); it is disabled until the next reload"
        disable(reason)
        Log.error(reason)
        return PluginCallFailure(message: reason)
    }

    private func failed(_ call: String, status: Int32, error: [CChar]) -> PluginCallFailure {
        failedCalls.add(1, ordering: .relaxed)
        let message = pluginMessage(error, fallback: "returned \(status) without a message")
        Log.warning("plugin \(name): \(call) failed: \(message)")
        return PluginCallFailure(message: message)
    }

    /// Asks a link detector for the links of `kind` in `text` (UTF-8). Invalid results are
    /// dropped and logged; overlapping ones are kept (the caller resolves overlaps).
    func detect(text: [UInt8], kind: String, options: JSONValue, language: String) -> Result<[DetectedLink], PluginCallFailure> {
        guard table.pointee.detect != nil else { return .failure(PluginCallFailure(message: "no detect function")) }
        if let off = disabledReason { return .failure(PluginCallFailure(message: off)) }
        calls.add(1, ordering: .relaxed)
        let arena = CArena()
        var request = layoutd_detect_request()
        request.struct_size = UInt32(MemoryLayout<layoutd_detect_request>.size)
        request.text = arena.bytes(text)
        request.text_length = text.count
        request.kind = arena.string(kind)
        request.options = arena.value(options)
        request.language = arena.string(language)
        let collector = Collector<DetectedLink>(text: text, limit: Self.maxResults)
        collector.kinds = kinds
        var error = [CChar](repeating: 0, count: 512)
        var signal: Int32 = 0
        let status = withExtendedLifetime(collector) {
            layoutd_guard_detect(table, state, &request, { context, link in
                guard let context, let link else { return }
                let c = Unmanaged<Collector<DetectedLink>>.fromOpaque(context).takeUnretainedValue()
                let l = link.pointee
                if c.full { c.drop("more than \(LoadedPlugin.maxResults) results"); return }
                if let problem = c.rangeProblem(l.start, l.end) { c.drop(problem); return }
                guard let kind = pluginString(l.kind), c.kinds.contains(kind) else {
                    c.drop("kind \(pluginString(l.kind).map { "\"\($0)\"" } ?? "NULL") is not one this plugin declares")
                    return
                }
                c.items.append(DetectedLink(start: Int(l.start), end: Int(l.end), kind: kind, value: pluginString(l.value)))
            }, Unmanaged.passUnretained(collector).toOpaque(), &error, error.count, callSeconds, &signal)
        }
        if status == LAYOUTD_GUARD_ABORTED { return .failure(aborted("detect(\"\(kind)\")", signal: signal)) }
        report(collector, call: "detect(\"\(kind)\")")
        guard status == 0 else { return .failure(failed("detect(\"\(kind)\")", status: status, error: error)) }
        return .success(collector.items)
    }

    /// Asks an attachment provider for the inline objects in `text` (UTF-8).
    func attachments(text: [UInt8], fontSize: Double, options: JSONValue) -> Result<[ProvidedAttachment], PluginCallFailure> {
        guard table.pointee.attachments != nil else { return .failure(PluginCallFailure(message: "no attachments function")) }
        if let off = disabledReason { return .failure(PluginCallFailure(message: off)) }
        calls.add(1, ordering: .relaxed)
        let arena = CArena()
        var request = layoutd_attachment_request()
        request.struct_size = UInt32(MemoryLayout<layoutd_attachment_request>.size)
        request.text = arena.bytes(text)
        request.text_length = text.count
        request.font_size = fontSize
        request.options = arena.value(options)
        let collector = Collector<ProvidedAttachment>(text: text, limit: Self.maxResults)
        var error = [CChar](repeating: 0, count: 512)
        var signal: Int32 = 0
        let status = withExtendedLifetime(collector) {
            layoutd_guard_attachments(table, state, &request, { context, object in
                guard let context, let object else { return }
                let c = Unmanaged<Collector<ProvidedAttachment>>.fromOpaque(context).takeUnretainedValue()
                let o = object.pointee
                if c.full { c.drop("more than \(LoadedPlugin.maxResults) results"); return }
                if let problem = c.rangeProblem(o.start, o.end) { c.drop(problem); return }
                for (name, v) in [("width", o.width), ("ascent", o.ascent), ("descent", o.descent)] {
                    guard v.isFinite, v >= 0, v <= 100_000 else { c.drop("\(name) \(v) is not a size from 0 to 100000"); return }
                }
                c.items.append(ProvidedAttachment(start: Int(o.start), end: Int(o.end), width: o.width, ascent: o.ascent,
                                                  descent: o.descent, value: pluginString(o.value)))
            }, Unmanaged.passUnretained(collector).toOpaque(), &error, error.count, callSeconds, &signal)
        }
        if status == LAYOUTD_GUARD_ABORTED { return .failure(aborted("attachments", signal: signal)) }
        report(collector, call: "attachments")
        guard status == 0 else { return .failure(failed("attachments", status: status, error: error)) }
        return .success(collector.items)
    }

    /// Asks a renderer for the decorations of one line.
    func decorate(line: UnsafePointer<layoutd_line>, textBytes: [UInt8]) -> Result<[LineDecoration], PluginCallFailure> {
        guard table.pointee.decorate != nil else { return .success([]) }
        if let off = disabledReason { return .failure(PluginCallFailure(message: off)) }
        calls.add(1, ordering: .relaxed)
        let collector = Collector<LineDecoration>(text: textBytes, limit: 10_000)
        var error = [CChar](repeating: 0, count: 512)
        var signal: Int32 = 0
        let status = withExtendedLifetime(collector) {
            layoutd_guard_decorate(table, state, line, { context, decoration in
                guard let context, let decoration else { return }
                let c = Unmanaged<Collector<LineDecoration>>.fromOpaque(context).takeUnretainedValue()
                let d = decoration.pointee
                if c.full { c.drop("more than 10000 decorations on one line"); return }
                let shape: String
                switch d.shape {
                case UInt32(LAYOUTD_DECORATION_RECT.rawValue): shape = "rect"
                case UInt32(LAYOUTD_DECORATION_ROUNDED_RECT.rawValue): shape = "roundedRect"
                case UInt32(LAYOUTD_DECORATION_LINE.rawValue): shape = "line"
                default: c.drop("unknown shape \(d.shape)"); return
                }
                let numbers = [d.rect.x, d.rect.y, d.rect.width, d.rect.height, d.radius, d.x0, d.y0, d.x1, d.y1, d.thickness]
                guard numbers.allSatisfy({ $0.isFinite && abs($0) <= 1e9 }) else { c.drop("a coordinate is not finite"); return }
                guard d.rect.width >= 0, d.rect.height >= 0, d.radius >= 0, d.thickness >= 0 else {
                    c.drop("a negative size"); return
                }
                c.items.append(LineDecoration(shape: shape, color: d.color, rect: (d.rect.x, d.rect.y, d.rect.width, d.rect.height),
                                              radius: d.radius, line: (d.x0, d.y0, d.x1, d.y1), thickness: d.thickness,
                                              role: pluginString(d.role)))
            }, Unmanaged.passUnretained(collector).toOpaque(), &error, error.count, callSeconds, &signal)
        }
        if status == LAYOUTD_GUARD_ABORTED { return .failure(aborted("decorate", signal: signal)) }
        report(collector, call: "decorate")
        guard status == 0 else { return .failure(failed("decorate", status: status, error: error)) }
        return .success(collector.items)
    }

    /// Asks a renderer to draw one line onto a canvas.
    func draw(line: UnsafePointer<layoutd_line>, canvas: UnsafePointer<layoutd_canvas>) -> Result<Void, PluginCallFailure> {
        guard table.pointee.draw != nil else { return .failure(PluginCallFailure(message: "this renderer does not draw")) }
        if let off = disabledReason { return .failure(PluginCallFailure(message: off)) }
        calls.add(1, ordering: .relaxed)
        var error = [CChar](repeating: 0, count: 512)
        var signal: Int32 = 0
        let status = layoutd_guard_draw(table, state, line, canvas, &error, error.count, callSeconds, &signal)
        if status == LAYOUTD_GUARD_ABORTED { return .failure(aborted("draw", signal: signal)) }
        guard status == 0 else { return .failure(failed("draw", status: status, error: error)) }
        return .success(())
    }
}

extension LineDecoration {
    /// `{shape, color, role?, x, y, width, height, radius?}` or `{shape: "line", x0, y0, x1, y1, thickness}`.
    var json: JSONValue {
        var members: [(String, JSONValue)] = [("shape", .string(shape)), ("color", .string(ColorValue.string(color)))]
        if let role { members.append(("role", .string(role))) }
        if shape == "line" {
            members += [("x0", .number(wire(line.x0))), ("y0", .number(wire(line.y0))), ("x1", .number(wire(line.x1))),
                        ("y1", .number(wire(line.y1))), ("thickness", .number(wire(thickness)))]
        } else {
            members += [("x", .number(wire(rect.x))), ("y", .number(wire(rect.y))), ("width", .number(wire(rect.width))),
                        ("height", .number(wire(rect.height)))]
            if shape == "roundedRect" { members.append(("radius", .number(wire(radius)))) }
        }
        return .object(members)
    }
}

/// Colors between the wire ("#rrggbb", "#rrggbbaa") and the ABI (0xRRGGBBAA).
enum ColorValue {
    static func parse(_ s: String?) -> UInt32? {
        guard var s, s.hasPrefix("#") else { return nil }
        s.removeFirst()
        if s.count == 3 || s.count == 4 { s = String(s.flatMap { [$0, $0] }) }
        guard s.count == 6 || s.count == 8, let v = UInt32(s, radix: 16) else { return nil }
        return s.count == 6 ? v << 8 | 0xFF : v
    }

    static func string(_ c: UInt32) -> String {
        let hex = String(c, radix: 16)
        let padded = String(repeating: "0", count: 8 - hex.count) + hex
        return c & 0xFF == 0xFF ? "#" + padded.prefix(6) : "#" + padded
    }
}
