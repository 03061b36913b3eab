import LayoutEngine
import LayoutProtocol
import Synchronization

/// Per-connection protocol state: the offset encoding chosen with `initialize`, how to send
/// the client a notification, and the requests of the connection that may be cancelled.
/// Thread-safe: requests of one connection run on several worker threads.
public final class Session: Sendable {
    private let encoding = Mutex(OffsetEncoding.utf16)
    /// Sends a notification to this connection's client (safe from any thread).
    public let notify: (@Sendable (JSONValue) -> Void)?
    /// Flags of the requests queued or running, by id, for `$/cancelRequest`.
    private let running = Mutex<[RPCId: CancelFlag]>([:])
    /// The flag and deadline of the request this session snapshot runs (see `job`).
    let cancellation: CancelFlag?
    let deadline: Double?
    /// For a snapshot, the connection's session it was taken from (nil for that session).
    private let owner: Session?
    /// The daemon's own warm-up session (`LayoutService.warmUp`): its requests are not
    /// counted in `stats`.
    let isWarmUp: Bool
    /// For a snapshot (one request), where its layouts leave their working data, and the
    /// request its retained layouts (`releaseAfterAnswer`), freed with the snapshot — which
    /// the job that runs the request holds until its answer is queued and written (see
    /// `Route`). Nil for a connection's session (it lives as long as the connection).
    let deferredRelease: DeferredRelease?

    public convenience init(notify: (@Sendable (JSONValue) -> Void)? = nil) {
        self.init(notify: notify, isWarmUp: false)
    }

    private init(notify: (@Sendable (JSONValue) -> Void)?, isWarmUp: Bool) {
        self.notify = notify
        self.cancellation = nil
        self.deadline = nil
        self.owner = nil
        self.isWarmUp = isWarmUp
        self.deferredRelease = nil
    }

    /// A connection-like session for the daemon's warm-up requests (not counted).
    static func warmUp() -> Session { Session(notify: nil, isWarmUp: true) }

    private init(owner: Session, cancellation: CancelFlag?, deadline: Double?) {
        self.notify = owner.notify
        self.encoding.withLock { $0 = owner.offsetEncoding }
        self.cancellation = cancellation
        self.deadline = deadline
        self.owner = owner
        self.isWarmUp = owner.isWarmUp
        self.deferredRelease = DeferredRelease()
    }

    /// Keeps `object` until this request's snapshot is freed, after its answer is written,
    /// so that freeing it (a layout's lines and regions) does not delay the answer. On a
    /// connection's session, does nothing (the object is freed as usual).
    /// At most `DeferredRelease.maxLayouts` are kept (a batch answers many layouts at once).
    func releaseAfterAnswer(_ object: some AnyObject & Sendable) {
        deferredRelease?.keep(object)
    }

    /// The encoding of offsets; setting it on a snapshot (an `initialize` inside a batch)
    /// sets it for the connection too.
    public var offsetEncoding: OffsetEncoding {
        get { encoding.withLock { $0 } }
        set {
            encoding.withLock { $0 = newValue }
            owner?.offsetEncoding = newValue
        }
    }

    /// The connection's session: `self`, or the one a snapshot was taken from. Subscriptions
    /// are kept by it, so that closing the connection ends them.
    var connection: Session { owner ?? self }

    /// A copy for one request: the encoding as it is now, the request's cancel flag and deadline.
    func snapshot(cancellation: CancelFlag?, deadline: Double?) -> Session {
        Session(owner: self, cancellation: cancellation, deadline: deadline)
    }

    /// Registers a request that may be cancelled; its flag.
    func register(_ id: RPCId) -> CancelFlag {
        let flag = CancelFlag()
        running.withLock { $0[id] = flag }
        return flag
    }

    func finished(_ id: RPCId) { _ = running.withLock { $0.removeValue(forKey: id) } }

    /// Marks request `id` cancelled (if it is queued or running).
    func cancel(_ id: RPCId) { running.withLock { $0[id] }?.set() }

    /// Marks every request of this connection cancelled (its client is gone).
    func cancelAll() { for flag in running.withLock({ Array($0.values) }) { flag.set() } }
}

/// Whether a request was cancelled; set by `$/cancelRequest`, read by the engine.
final class CancelFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .relaxed) }
    var isSet: Bool { flag.load(ordering: .relaxed) }
}

/// Answers JSON-RPC messages: decodes, validates, dispatches to the engine and encodes the
/// result. Stateless apart from the shared engine; thread-safe.
public final class LayoutService: Sendable {
    public static let protocolVersion = LayoutdVersion.protocolVersion
    public static let serverName = "layoutd"
    public static let serverVersion = LayoutdVersion.current
    /// Methods answered, as `initialize` lists them.
    public static let methods = ["initialize", "layout", "measure", "boundaries", "hitTest", "caret", "rects", "word",
                                 "lineRange", "selectedText", "update", "release", "render", "stats", "reload", "ping"]

    /// Methods whose work is bounded by their message's length (text given, or a point or
    /// offset looked up): not `render` (its image size is asked for), not `rects` and
    /// `selectedText` (as long as the range asked for in a retained layout), not `stats` or
    /// `reload`.
    public static let quickMethods: Set<String> = ["layout", "measure", "boundaries", "hitTest", "caret", "word", "lineRange", "ping"]

    /// The engine and configuration in force; `reload` replaces both at once.
    private let current: Mutex<(engine: TextLayoutEngine, configuration: ServerConfiguration)>
    public var engine: TextLayoutEngine { current.withLock { $0.engine } }
    public var configuration: ServerConfiguration { current.withLock { $0.configuration } }
    /// Makes a new engine and configuration from the configuration file (for `reload`).
    private let reloader: (@Sendable () throws -> (TextLayoutEngine, ServerConfiguration))?
    /// The plugins in force; `reload` loads them again (requests in flight keep theirs).
    private let pluginSet: Mutex<PluginSet>
    public var plugins: PluginSet { pluginSet.withLock { $0 } }
    /// Loads the plugins a configuration names (for `reload`).
    private let pluginLoader: (@Sendable (ServerConfiguration) -> PluginSet)?
    /// Connections that asked for `fontsChanged`, by session.
    private let subscribers = Mutex<[ObjectIdentifier: @Sendable (JSONValue) -> Void]>([:])
    /// Retained layouts, shared by every connection.
    let store: LayoutStore
    let statistics = Statistics()
    /// Connections open now (kept by the server).
    let connections = Atomic<Int>(0)
    /// The connections of each event loop, as the server reports them once it serves.
    let loopConnections = Mutex<(@Sendable () -> [Int])?>(nil)
    /// Requests being answered now (kept by the server), for draining on SIGTERM.
    public let inFlight = Atomic<Int>(0)

    /// `reloader` re-reads the configuration and rescans fonts for `reload` and SIGHUP.
    /// `plugins` are those loaded at start; `pluginLoader` loads them again on reload.
    public init(engine: TextLayoutEngine, configuration: ServerConfiguration,
                reloader: (@Sendable () throws -> (TextLayoutEngine, ServerConfiguration))? = nil,
                plugins: PluginSet = .empty, pluginLoader: (@Sendable (ServerConfiguration) -> PluginSet)? = nil) {
        self.current = Mutex((engine, configuration))
        self.reloader = reloader
        self.pluginSet = Mutex(plugins)
        self.pluginLoader = pluginLoader
        self.store = LayoutStore(maxCount: configuration.maxRetainedLayouts, maxBytes: configuration.maxRetainedBytes)
    }

    /// Re-reads the configuration and rescans the fonts, then swaps them in; connections stay
    /// open, requests in flight finish with what they started with. Clients that asked for it
    /// get `fontsChanged` when the font fingerprint changed. Returns the new fingerprint.
    /// When no font changed, the shaped words are carried over into the new engine.
    /// Retained layouts keep the fonts they were made with; store limits keep their values.
    public func reload() throws(RPCError) -> String {
        guard let reloader else { throw RPCError(.serverError, "this daemon was started without a configuration to reload") }
        let before = engine.fonts.fingerprint
        let made: (TextLayoutEngine, ServerConfiguration)
        do { made = try reloader() } catch {
            throw RPCError(.serverError, "reload failed, the previous configuration stays: \(error)")
        }
        // Words shaped with the same fonts shape the same: the new engine starts with them.
        Self.carryShapeCache(from: engine, to: made.0)
        if let pluginLoader {
            let fresh = pluginLoader(made.1)
            pluginSet.withLock { $0 = fresh }
        }
        current.withLock { $0 = made }
        let after = made.0.fonts.fingerprint
        if after != before {
            let note: JSONValue = ["jsonrpc": "2.0", "method": "fontsChanged", "params": ["fontFingerprint": .string(after)]]
            for send in subscribers.withLock({ Array($0.values) }) { send(note) }
        }
        return after
    }

    /// Stops sending notifications to a session (its connection closed).
    public func unsubscribe(_ session: Session) {
        _ = subscribers.withLock { $0.removeValue(forKey: ObjectIdentifier(session)) }
    }

    /// What to do with one line of input: answer it at once (parse errors, `initialize`,
    /// `release`, and `$/` notifications such as `$/cancelRequest`, which must take effect in
    /// the order sent), run it on a worker before reading on (`update`), or run it as a job on
    /// a worker (everything else; answers may then come out of order).
    ///
    /// A job's closure holds its request's session snapshot, and with it the request's
    /// working data (`Session.deferredRelease`): whoever runs it should let go of the closure only
    /// after queueing its answer, so that the freeing comes after the answer is written.
    public enum Route {
        case reply([UInt8]?)
        /// `quick`: its work grows with the message alone (`quickMethods`), so a short one may
        /// be answered by the event loop itself (see `EventLoop.processFrames`).
        case job(@Sendable () -> [UInt8]?, quick: Bool)
        /// Runs on a worker, but the connection's later messages wait until it is done
        /// (`update`: edits apply in the order sent, without holding up other connections).
        case ordered(@Sendable () -> [UInt8]?)
    }

    /// Routes one line of input (see `Route`).
    public func route(line: [UInt8], session: Session) -> Route {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return .reply(nil) }
        let message: JSONValue
        do {
            message = try JSONParser.parse(line, utf16Text: true)
        } catch {
            return .reply(JSONWriter.serialize(RPCResponse.failure(id: .null, error: RPCError(.parseError, "parse error: \(error)"))))
        }
        if case .success(let request) = RPCRequest.decode(message) {
            if ["initialize", "release"].contains(request.method) || request.method.hasPrefix("$/") {
                return .reply(handle(message: message, session: session).map(JSONWriter.serialize))
            }
            if request.method == "update" {
                let snapshot = session.snapshot(cancellation: nil, deadline: Statistics.now() + configuration.requestSeconds)
                return .ordered { [self] in handle(message: message, session: snapshot).map(JSONWriter.serialize) }
            }
            let deadline = Statistics.now() + configuration.requestSeconds
            let flag = request.id.map { session.register($0) }
            let snapshot = session.snapshot(cancellation: flag, deadline: deadline)
            return .job({ [self] in
                defer { if let id = request.id { session.finished(id) } }
                if let flag, flag.isSet, let id = request.id {
                    return JSONWriter.serialize(RPCResponse.failure(id: id, error: RPCError(.requestCancelled, "request cancelled")))
                }
                return handle(message: message, session: snapshot).map(JSONWriter.serialize)
            }, quick: Self.quickMethods.contains(request.method))
        }
        let snapshot = session.snapshot(cancellation: nil, deadline: Statistics.now() + configuration.requestSeconds)
        return .job({ [self] in handle(message: message, session: snapshot).map(JSONWriter.serialize) }, quick: false)
    }

    /// Requests a client's first ones are like (`layout` at the default and the `glyphs`
    /// detail, `measure`), for `warmUp`.
    static let warmUpLines: [String] = [
        #"{"jsonrpc":"2.0","id":1,"method":"layout","params":{"text":"Hello, world — 你好 مرحبا","width":120}}"#,
        #"{"jsonrpc":"2.0","id":2,"method":"layout","params":{"text":"Hello, world — 你好 مرحبا","width":120,"detail":"glyphs"}}"#,
        #"{"jsonrpc":"2.0","id":3,"method":"measure","params":{"text":"Hello, world — 你好 مرحبا","width":120}}"#,
    ]

    /// Runs `warmUpLines` on the calling thread the way a connection's requests run — routed,
    /// registered for cancelling, with a deadline and the stop check, answered and written as
    /// JSON — and drops the answers. A first client request then finds the code, the runtime's
    /// type metadata and the thread's allocations in use already. Not counted in `stats`.
    /// Call it on each thread that will serve requests, before they are served.
    public func warmUp() {
        let session = Session.warmUp()
        for line in Self.warmUpLines {
            switch route(line: Array(line.utf8), session: session) {
            case .reply(let answer): _ = answer
            case .job(let job, _), .ordered(let job): _ = job()
            }
        }
    }

    /// Handles a parsed message: a request, a notification or a batch.
    public func handle(message: JSONValue, session: Session) -> JSONValue? {
        guard case .array(let batch) = message else { return handle(single: message, session: session) }
        guard !batch.isEmpty else {
            return RPCResponse.failure(id: .null, error: RPCError(.invalidRequest, "invalid request: empty batch"))
        }
        var budget = configuration.maxOutputBytes
        let responses = batch.compactMap { handle(single: $0, session: session, budget: &budget) }
        return responses.isEmpty ? nil : .array(responses)
    }

    private func handle(single message: JSONValue, session: Session) -> JSONValue? {
        var budget = configuration.maxOutputBytes
        return handle(single: message, session: session, budget: &budget)
    }

    /// One request's response, at most `budget` bytes long (see `bounded`).
    private func handle(single message: JSONValue, session: Session, budget: inout Int) -> JSONValue? {
        let request: RPCRequest
        switch RPCRequest.decode(message) {
        case .failure(let failure): return RPCResponse.failure(id: failure.id, error: failure.error)
        case .success(let r): request = r
        }
        let started = Statistics.now()
        var response: JSONValue? = nil
        var failed = true
        do {
            let result = try call(request, session: session)
            if let id = request.id {
                let answer = bounded(RPCResponse.success(id: id, result: result), id: id, method: request.method, budget: &budget)
                response = answer.response
                failed = !answer.sent
            } else {
                failed = false
            }
        } catch {
            response = request.id.map { RPCResponse.failure(id: $0, error: error) }
        }
        if !session.isWarmUp {
            statistics.record(method: request.method, seconds: Statistics.now() - started, failed: failed)
        }
        return response
    }

    /// Runs one method.
    public func call(_ request: RPCRequest, session: Session) throws(RPCError) -> JSONValue {
        switch request.method {
        case "initialize": return try initialize(request.params, session: session)
        case "layout": return try layout(request.params, session: session)
        case "measure": return try measure(request.params, session: session)
        case "boundaries": return try boundaries(request.params, session: session)
        case "hitTest": return try hitTest(request.params, session: session)
        case "caret": return try caret(request.params, session: session)
        case "rects": return try rects(request.params, session: session)
        case "word": return try word(request.params, session: session)
        case "lineRange": return try lineRange(request.params, session: session)
        case "selectedText": return try selectedText(request.params, session: session)
        case "update": return try update(request.params, session: session)
        case "render": return try render(request.params, session: session)
        case "release": return try release(request.params)
        case "stats": return stats()
        case "reload": return ["fontFingerprint": .string(try reload())]
        case "ping": return ["pong": true]
        case "$/cancelRequest":
            // Cancels a request of this connection that is queued or running: it answers
            // -32800. Unknown or finished ids are ignored (as LSP does).
            if let v = try ParamReader(request.params).member("id"), let id = RPCId(v) {
                session.connection.cancel(id)
            }
            return .null
        case let method where method.hasPrefix("$/"):
            return .null   // other protocol notifications are ignored
        default:
            throw RPCError(.methodNotFound, "method not found: \"\(request.method)\"; this server answers \(Self.methods.joined(separator: ", "))")
        }
    }

    private func initialize(_ params: JSONValue?, session: Session) throws(RPCError) -> JSONValue {
        let p = try InitializeParams(json: params)
        var chosen = OffsetEncoding.utf16
        if !p.offsetEncodings.isEmpty {
            guard let first = p.offsetEncodings.lazy.compactMap(OffsetEncoding.init(rawValue:)).first else {
                throw .invalidParams(field: "offsetEncodings", "names no encoding this server knows (utf-8, utf-16, utf-32)")
            }
            chosen = first
        }
        session.offsetEncoding = chosen
        if p.subscribe.contains("fontsChanged"), let notify = session.notify {
            subscribers.withLock { $0[ObjectIdentifier(session.connection)] = notify }
        }
        return [
            "protocolVersion": .number(Double(Self.protocolVersion)),
            "offsetEncoding": .string(chosen.rawValue),
            "server": ["name": .string(Self.serverName), "version": .string(Self.serverVersion)],
            "capabilities": ["methods": .array(Self.methods.map { .string($0) }), "plugins": plugins.summaryJSON,
                             "notifications": ["fontsChanged"]],
            "fontFingerprint": .string(engine.fonts.fingerprint),
        ]
    }

    private func layout(_ params: JSONValue?, session: Session) throws(RPCError) -> JSONValue {
        let p = try LayoutParams(json: params)
        let retain = try ParamReader(params).bool("retain") ?? false
        let retained = try perform(p, session: session, geometry: retain)
        try checkResultEstimate(retained.layout, detail: retained.detail)
        let handle = retain ? store.insert(retained) : nil
        session.releaseAfterAnswer(retained)
        return result(retained, session: session, handle: handle).wireJSON
    }

    /// Lays out validated params, keeping what follow-up queries need.
    /// `geometry`: keep positions and runs for queries even when the result needs none.
    /// `previous`: a retained layout of the text before an edit, whose unchanged paragraphs
    /// are taken over.
    func perform(_ p: LayoutParams, session: Session, geometry: Bool,
                 utf16Spans: [(start: Int, end: Int, attributes: SpanAttributes)]? = nil,
                 utf16Text: [UInt16]? = nil, previous: RetainedLayout? = nil) throws(RPCError) -> RetainedLayout {
        let detail = p.detail.flatMap(LayoutDetail.init(rawValue:)) ?? .lines
        try checkDecorations(p)
        var built = try build(p, session: session, detail: detail, utf16Spans: utf16Spans, utf16Text: utf16Text)
        built.request.shouldStop = stopCheck(session)
        if geometry {
            built.request.keepsGeometry = true
            built.request.keepsReusable = true
        }
        built.request.previous = previous?.layout.reusable
        let engine = self.engine
        let layout: TextLayout
        do { layout = try engine.layout(built.request, deferredRelease: session.deferredRelease) } catch { throw Self.rpcError(error) }
        built.request.previous = nil   // taken over; keeping it would keep the layout before too
        return RetainedLayout(params: p, built: built, layout: layout, detail: detail, encoding: session.offsetEncoding,
                              fontFingerprint: engine.fonts.fingerprint)
    }

    /// The `layout` result of a retained layout, offsets in the session's encoding; with
    /// `lines`, only those lines.
    func result(_ retained: RetainedLayout, session: Session, handle: String?, lines selected: Range<Int>? = nil) -> LayoutResult {
        let layout = retained.layout
        let detail = retained.detail
        let offsets = retained.mapping(session.offsetEncoding)
        let chosen = selected ?? layout.lines.indices
        let decorations = lineDecorations(retained, lines: chosen)
        var lines = layout.lines[chosen].map { line in
            LineResult(start: offsets.convert(line.start), end: offsets.convert(line.end), x: wire(line.x), y: wire(line.y),
                       width: wire(line.width), height: wire(line.height), baseline: wire(line.baseline),
                       ascent: wire(line.ascent), descent: wire(line.descent), hyphenated: line.hyphenated,
                       runs: detail >= .runs ? line.runs.map { run in
                           RunResult(start: offsets.convert(run.start), end: offsets.convert(run.end), font: run.font,
                                     style: run.style, token: run.isToken,
                                     level: Int(run.level), x: wire(run.x), width: wire(run.width),
                                     glyphs: detail == .glyphs ? run.glyphs.map {
                                         GlyphResult(id: Int($0.id), cluster: offsets.convert($0.cluster),
                                                     advance: wire($0.advance), dx: wire($0.xOffset),
                                                     dy: wire(-$0.yOffset - run.baselineOffset))
                                     } : nil)
                       } : nil)
        }
        if let decorations {
            for i in lines.indices { lines[i].decorations = decorations[i] }
        }
        let fonts = (detail >= .runs ? layout.fonts : Array(layout.fonts.prefix(1))).map {
            FontResult(family: $0.family, file: $0.identity.path, index: $0.identity.index, size: $0.size,
                       variations: Dictionary($0.variations.map { ($0.tag, $0.value) }, uniquingKeysWith: { $1 }))
        }
        let regions = retained.regions.map {
            RegionResult(kind: $0.kind, start: offsets.convert($0.start), end: offsets.convert($0.end), value: $0.value,
                         rects: $0.rects.map(wireRect), enabled: $0.enabled)
        }
        let visible = layout.truncated
            ? layout.visibleRanges.map { RangeResult(start: offsets.convert($0.lowerBound), end: offsets.convert($0.upperBound)) }
            : nil
        var result = LayoutResult(width: wire(layout.width), height: wire(layout.height), truncated: layout.truncated,
                                  lines: lines, regions: regions, fonts: fonts,
                                  styles: detail >= .runs ? retained.built.styles.map(\.json) : nil, visible: visible,
                                  handle: handle, fontFingerprint: retained.fontFingerprint)
        result.warnings = retained.built.warnings
        return result
    }

    /// What the engine asks between paragraphs and lines: was the request cancelled, is it
    /// past its deadline, has it used up its CPU time. Called on the thread that will run the
    /// layout (the engine runs a request on one thread), whose CPU clock it reads.
    func stopCheck(_ session: Session) -> (@Sendable () -> EngineError?)? {
        guard session.cancellation != nil || session.deadline != nil else { return nil }
        let flag = session.cancellation, deadline = session.deadline, limit = configuration.requestSeconds
        let cpuLimit = configuration.requestCPUSeconds, started = Statistics.now()
        let lastCPURead = Atomic<UInt64>(started.bitPattern)
        // The thread's CPU time when the request started, first read 5 ms in (see below).
        let cpuStart = Atomic<UInt64>(Double.nan.bitPattern)
        return {
            if flag?.isSet == true { return .cancelled }
            let now = Statistics.now()
            if let deadline, now > deadline { return .timeLimitExceeded(seconds: limit) }
            // The thread's CPU clock is a system call (the wall clock is not): read it at most
            // every 5 ms of wall time, and not at all by a request done sooner. One thread's
            // CPU time grows no faster than wall time, so the start is taken as the first
            // reading less the wall time until it (as if the request had run all along), and
            // the limit is met within 5 ms either way.
            if now - Double(bitPattern: lastCPURead.load(ordering: .relaxed)) >= 0.005 {
                lastCPURead.store(now.bitPattern, ordering: .relaxed)
                let cpu = Statistics.threadCPUSeconds()
                var start = Double(bitPattern: cpuStart.load(ordering: .relaxed))
                if start.isNaN {
                    start = cpu - (now - started)
                    cpuStart.store(start.bitPattern, ordering: .relaxed)
                }
                if cpu - start > cpuLimit { return .cpuLimitExceeded(seconds: cpuLimit) }
            }
            return nil
        }
    }

    /// `measure`: the layout params → `{size, lineCount, truncated}`, nothing else computed.
    private func measure(_ params: JSONValue?, session: Session) throws(RPCError) -> JSONValue {
        let p = try LayoutParams(json: params)
        var built = try build(p, session: session, detail: .lines, detect: false)
        built.request.keepsGeometry = false
        built.request.shouldStop = stopCheck(session)
        let layout: TextLayout
        do { layout = try engine.layout(built.request, deferredRelease: session.deferredRelease) } catch { throw Self.rpcError(error) }
        return ["size": ["width": .number(wire(layout.width)), "height": .number(wire(layout.height))],
                "lineCount": .number(Double(layout.lines.count)), "truncated": .bool(layout.truncated),
                "fontFingerprint": .string(engine.fonts.fingerprint)]
    }

    private func boundaries(_ params: JSONValue?, session: Session) throws(RPCError) -> JSONValue {
        let p = try BoundariesParams(json: params)
        let text = try requestText(units: p.textUnits, text: p.text)
        guard let kind = BoundaryKind(rawValue: p.kind) else { throw .invalidParams(field: "kind", "is not known") }
        let offsets: [Int]
        do { offsets = try engine.boundaries(kind, of: text, language: p.language ?? "") } catch { throw Self.rpcError(error) }
        let mapping = OffsetMapping(text: text, encoding: session.offsetEncoding.engineEncoding)
        return ["offsets": .array(offsets.map { .number(Double(mapping.convert($0))) })]
    }

    /// A request's text in UTF-16 — `units` as the parser decoded them from the wire, else
    /// `text` converted — when within the configured length; else -32602 naming `text`.
    func requestText(units: [UInt16]?, text: @autoclosure () -> String) throws(RPCError) -> [UInt16] {
        let units = units ?? utf16Units(of: text())
        guard units.count <= configuration.maxTextLength else {
            throw .invalidParams(field: "text", "is \(units.count) UTF-16 units long; this server accepts at most \(configuration.maxTextLength)")
        }
        return units
    }

    /// `stats`: counters a person can read.
    func stats() -> JSONValue {
        let fontCaches = engine.fonts.cacheCounts
        let lookups = engine.fonts.cacheLookups
        let retained = store.counts
        return [
            "server": ["name": .string(Self.serverName), "version": .string(Self.serverVersion),
                       "uptimeSeconds": .number((Statistics.now() - statistics.started).rounded())],
            "connections": ["open": .number(Double(connections.load(ordering: .relaxed))),
                            "limit": .number(Double(configuration.maxConnections)),
                            "perLoop": .array((loopConnections.withLock { $0 }?() ?? []).map { .number(Double($0)) }),
                            "moved": .number(Double(statistics.movedConnections.load(ordering: .relaxed)))],
            "requests": statistics.json,
            "caches": [
                "fallbackLists": Self.cacheJSON(count: fontCaches.fallbackLists, lookups.fallbackLists),
                "fontFaces": Self.cacheJSON(count: fontCaches.faces, lookups.faces),
                "shapedWords": .object((Self.cacheJSON(count: engine.shapeCache.count, engine.shapeCache.lookupCounts).objectMembers ?? [])
                                       + [("maxCount", .number(Double(engine.shapeCache.capacity))),
                                          ("shapedTogether", .number(Double(engine.shapeCache.wordsShapedTogether))),
                                          ("restored", .number(Double(engine.shapeCache.wordsRestored)))]),
                "retainedLayouts": .object((Self.cacheJSON(count: retained.count, store.lookups.snapshot).objectMembers ?? []) + [
                    ("bytes", .number(Double(retained.bytes))), ("evicted", .number(Double(retained.evicted))),
                    ("maxCount", .number(Double(configuration.maxRetainedLayouts))),
                    ("maxBytes", .number(Double(configuration.maxRetainedBytes)))]),
            ],
            "fonts": ["faces": .number(Double(engine.fonts.fontCount)),
                      "configuration": engine.fonts.fontConfigPath.map { .string($0) } ?? .null,
                      "skippedFiles": .array(engine.fonts.skippedFiles.prefix(100).map { .string($0) }),
                      "families": .array(engine.fonts.families.map { .string($0) })],
            "plugins": plugins.statsJSON,
            "memory": ["residentBytes": Statistics.residentBytes().map { .number(Double($0)) } ?? .null],
        ]
    }

    /// `{count, hits, misses, hitRate}` of a cache (`hitRate` null before the first lookup).
    static func cacheJSON(count: Int, _ lookups: CacheLookups) -> JSONValue {
        ["count": .number(Double(count)), "hits": .number(Double(lookups.hits)), "misses": .number(Double(lookups.misses)),
         "hitRate": lookups.hitRate.map { .number(($0 * 1000).rounded() / 1000) } ?? .null]
    }

    /// An engine error as the JSON-RPC error a client can act on.
    static func rpcError(_ error: any Error) -> RPCError {
        switch error {
        case let e as EngineError:
            switch e {
            case .textTooLong: return .invalidParams(field: "text", e.description)
            case .cancelled: return RPCError(.requestCancelled, "request cancelled")
            case .timeLimitExceeded, .cpuLimitExceeded: return RPCError(.serverError, e.description)
            case .noFontsAvailable, .unreadableFont, .damagedFont, .fontConfigurationFailed:
                return RPCError(.serverError, "\(e.description)")
            case .icuFailed: return RPCError(.internalError, "internal error: \(e.description)")
            }
        default:
            return RPCError(.internalError, "internal error: \(error)")
        }
    }
}

/// A coordinate as sent on the wire: rounded to 1/1000 point, which no renderer can tell
/// apart and which keeps results short and readable.
@inline(__always)
func wire(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

/// A rectangle as sent on the wire.
func wireRect(_ r: Rect) -> RectParams {
    RectParams(x: wire(r.x), y: wire(r.y), width: wire(r.width), height: wire(r.height))
}

extension OffsetEncoding {
    var engineEncoding: TextEncoding {
        switch self {
        case .utf8: .utf8
        case .utf16: .utf16
        case .utf32: .utf32
        }
    }
}
