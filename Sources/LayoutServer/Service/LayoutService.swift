import LayoutEngine
import LayoutProtocol
import LayoutTransport
import Synchronization

/// Answers JSON-RPC messages: decodes, validates, dispatches to the engine and encodes the
/// result. Stateless apart from the shared engine; thread-safe.
public final class LayoutService: Sendable {
    public static let protocolVersion = LayoutdVersion.protocolVersion
    public static let serverName = "layoutd"
    public static let serverVersion = LayoutdVersion.current
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
    /// What the server serving this service reports of its connections, for `stats` (set
    /// by `Server`).
    let connectionsReport = Mutex<(@Sendable () -> ConnectionsReport)?>(nil)

    /// `reloader` re-reads the configuration and rescans fonts for `reload` and SIGHUP.
    /// `plugins` are those loaded at start; `pluginLoader` loads them again on reload.
    public init(engine: TextLayoutEngine, configuration: ServerConfiguration,
                reloader: (@Sendable () throws -> (TextLayoutEngine, ServerConfiguration))? = nil,
                plugins: PluginSet = .empty, pluginLoader: (@Sendable (ServerConfiguration) -> PluginSet)? = nil) {
        self.current = Mutex((engine, configuration))
        self.reloader = reloader
        self.pluginSet = Mutex(plugins)
        self.pluginLoader = pluginLoader
        self.store = LayoutStore(maxCount: configuration.maxRetainedLayouts, maxBytes: configuration.maxRetainedBytes,
                                 node: configuration.nodeId ?? ServerConfiguration.derivedNodeId())
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

    /// Sends `fontsChanged` to the session's connection from now on.
    func subscribe(_ session: Session) {
        guard let notify = session.notify else { return }
        subscribers.withLock { $0[ObjectIdentifier(session.connection)] = notify }
    }

    /// Stops sending notifications to a session (its connection closed).
    public func unsubscribe(_ session: Session) {
        _ = subscribers.withLock { $0.removeValue(forKey: ObjectIdentifier(session)) }
    }

    /// Lays out validated params, keeping what follow-up queries need (`keeping`).
    /// `previous`: what a layout of the text before an edit (or of the same text under
    /// other params) kept, whose unchanged paragraphs are taken over. `continues`: the text is a document's piece with more after it.
    /// `detect`: run the plugins' detectors (not for text they have seen and found nothing in).
    func perform(_ p: LayoutParams, session: Session, keeping: LayoutKeeping,
                 utf16Spans: [(start: Int, end: Int, attributes: SpanAttributes)]? = nil,
                 utf16Text: [UInt16]? = nil, previous: ReusableLayout? = nil,
                 continues: Bool = false, detect: Bool = true,
                 fontCarry: FontSelectionCarry? = nil) throws(RPCError) -> RetainedLayout {
        let detail = p.detail.flatMap(LayoutDetail.init(rawValue:)) ?? .lines
        try checkDecorations(p)
        var built = try build(p, session: session, detail: detail, utf16Spans: utf16Spans, utf16Text: utf16Text, detect: detect)
        built.request.shouldStop = stopCheck(session)
        switch keeping {
        case .nothing: break
        case .everything:
            built.request.keepsGeometry = true
            built.request.keepsReusable = true
        case .reusable:
            built.request.keepsReusable = true
        }
        built.request.previous = previous
        built.request.textContinues = continues
        built.request.fontCarry = fontCarry
        let engine = self.engine
        let layout: TextLayout
        do { layout = try engine.layout(built.request, deferredRelease: session.deferredRelease) } catch { throw Self.rpcError(error) }
        built.request.previous = nil   // taken over; keeping it would keep the layout before too
        built.request.fontCarry = nil
        return RetainedLayout(params: p, built: built, layout: layout, detail: detail, encoding: session.offsetEncoding,
                              fontFingerprint: engine.fonts.fingerprint)
    }

    /// What the engine asks between paragraphs and lines: was the request cancelled, is it
    /// past its deadline, has it used up its CPU time. Called on the thread that will run the
    /// layout (the engine runs a request on one thread), whose CPU clock it reads.
    func stopCheck(_ session: Session) -> (@Sendable () -> EngineError?)? {
        guard session.cancellation != nil || session.deadline != nil else { return nil }
        let flag = session.cancellation, deadline = session.deadline, limit = configuration.requestSeconds
        let cpuLimit = configuration.requestCPUSeconds, started = MonotonicClock.now()
        let lastCPURead = Atomic<UInt64>(started.bitPattern)
        // The thread's CPU time when the request started, first read 5 ms in (see below).
        let cpuStart = Atomic<UInt64>(Double.nan.bitPattern)
        return {
            if flag?.isSet == true { return .cancelled }
            let now = MonotonicClock.now()
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

    /// A request's text in UTF-16 — `units` as the parser decoded them from the wire, else
    /// `text` converted — when within the configured length (`maxDocumentLength` for a
    /// document to retain, else `maxTextLength`); else -32602 naming `text`.
    func requestText(units: [UInt16]?, text: @autoclosure () -> String, retained: Bool = false) throws(RPCError) -> [UInt16] {
        let units = units ?? utf16Units(of: text())
        let limit = retained ? configuration.maxDocumentLength : configuration.maxTextLength
        guard units.count <= limit else {
            let hint = retained ? "limits.maxDocumentLength, for retained documents"
                : configuration.maxDocumentLength > limit
                    ? "limits.maxTextLength; a retained document (retain: true) may hold up to \(configuration.maxDocumentLength), limits.maxDocumentLength"
                    : "limits.maxTextLength"
            throw .invalidParams(field: "text", "is \(units.count) UTF-16 units long; this server accepts at most \(limit) (\(hint))")
        }
        return units
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

/// What a layout keeps beyond its result.
enum LayoutKeeping {
    /// Nothing: a one-shot layout.
    case nothing
    /// Positions and runs for queries, and what a later layout takes over.
    case everything
    /// What a later layout takes over (lines and shaping); positions and runs only where the
    /// request itself needs them (regions, run detail, a line limit). A retained document's
    /// piece is kept so until a query needs its runs (`LayoutService.full`).
    case reusable
}
