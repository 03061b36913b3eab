import Dispatch
import GlyphRaster
import LayoutEngine
import LayoutProtocol
import LayoutTransport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// layoutd's life from its command line to its exit: loads the configuration and fonts,
/// opens the listening sockets (or takes systemd's), serves until SIGTERM or SIGINT drains it
/// (`DaemonSignals`), reloads on SIGHUP, and keeps systemd told (readiness, status, the
/// watchdog).
public final class Daemon: Sendable {
    let options: DaemonOptions
    /// The configuration file in use (nil: built-in defaults).
    let configurationPath: String?
    let configuration: ServerConfiguration
    let fonts: FontSystem
    let rasterizer: GlyphRasterizer?
    /// What the font fingerprint covers besides the fonts and the engine's libraries.
    let fingerprintParts: [FingerprintPart]
    /// Whether a TCP listener is open (a reload must keep a token then).
    let servesTCP = Atomic<Bool>(false)

    /// Text in the scripts the common fallbacks cover: laid out before taking requests so
    /// that the default font and those fallbacks are loaded.
    static let warmUpText = "Hello, world — Привет, Γειά σου, مرحبا, שלום, नमस्ते, 你好, こんにちは, 안녕하세요, สวัสดี"

    /// Loads the configuration and the fonts it names; exits 1 when either is unusable.
    public init(options: DaemonOptions) {
        self.options = options
        configurationPath = options.configurationPath ?? ServerConfiguration.defaultPath(environment: Self.environment)
        if let configurationPath {
            do { configuration = try ServerConfiguration.load(path: configurationPath) } catch { Self.fail("bad configuration: \(error)") }
        } else {
            configuration = ServerConfiguration()
        }
        do { rasterizer = try GlyphRasterizer() } catch {
            Log.warning("no glyph rasterizer (render will draw no glyphs): \(error)")
            rasterizer = nil
        }
        fingerprintParts = [FingerprintPart(name: "layoutd", value: LayoutdVersion.current),
                            FingerprintPart(name: "freetype", value: rasterizer?.freeTypeVersion ?? "none")]
        do {
            fonts = try FontSystem(fontConfigPath: configuration.fontConfig, fingerprintParts: fingerprintParts,
                                   report: { Log.warning($0) })
        } catch {
            Self.fail("\(error)")
        }
        Log.info("configuration: \(configuration.source); fonts: \(configuration.fontConfig ?? "system fontconfig") (\(fonts.fontCount) faces)")
        if fonts.fontCount == 0 { Self.fail("the font configuration lists no fonts; install the font packages (scripts/setup)") }
    }

    /// Logs `message` as an error and exits with `status`.
    public static func fail(_ message: String, status: Int32 = 1) -> Never {
        Log.error(message)
        exit(status)
    }

    /// An environment variable's value, or nil when it is not set.
    public static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// `--check-config`: prints the settings and exits 0 (the configuration and fonts loaded).
    public func printCheckedConfiguration() -> Never {
        let parts = fonts.fingerprintWithParts.parts.map { "\($0.name) \($0.value)" }.joined(separator: ", ")
        print("\(configuration.source): ok (\(fonts.fontCount) font faces)\n\(configuration.summary)")
        print("fontFingerprint: \(fonts.fingerprint) (\(parts))")
        exit(0)
    }

    /// Serves until a signal stops it; never returns.
    public func run() -> Never {
        let engine = TextLayoutEngine(fonts: fonts, maxTextLength: configuration.engineTextLength,
                                      shapeCacheEntries: configuration.shapeCacheEntries,
                                      measureCacheEntries: configuration.measureCacheEntries)
        do { try Self.warmUp(engine, configuration) } catch {
            Self.fail("cannot lay out text with the configured fonts: \(error)")
        }
        let signals = DaemonSignals.block()
        let listeners = DaemonListeners.open(configuration, socketOption: options.socketPath)
        servesTCP.store(listeners.servesTCP, ordering: .relaxed)
        serve(listeners: listeners, engine: engine, signals: signals)
    }

    /// Lays out the warm-up text with `configuration`'s default font.
    static func warmUp(_ engine: TextLayoutEngine, _ configuration: ServerConfiguration) throws {
        _ = try engine.layout(LayoutRequest(
            text: Array(warmUpText.utf16), width: 200,
            font: FontDescriptor(family: configuration.defaultFamily, size: configuration.defaultSize)))
    }

    /// The service and server on `listeners`: started, warmed, announced, then serving.
    private func serve(listeners: consuming DaemonListeners, engine: TextLayoutEngine, signals: sigset_t) -> Never {
        let plugins = loadPlugins(configuration)
        let service = LayoutService(engine: engine, configuration: configuration, reloader: reloadEngine,
                                    plugins: plugins, pluginLoader: loadPlugins)
        // The words a previous run shaped, before the first request.
        if let file = configuration.shapeCacheFile { service.restoreShapeCacheFile(from: file) }
        let server = Server(service: service)
        DaemonSignals(signals: signals, service: service, server: server, socketFiles: listeners.socketFiles).start()
        Systemd.startWatchdog()
        for name in listeners.names { print("layoutd listening on \(name)") }
        fflush(nil)
        let names = listeners.names.joined(separator: ", ")
        Log.info("listening on \(names)")
        warmUpRequestPath(service: service, server: server)
        // Fonts are warm and the listeners are live: ready.
        Systemd.notify("READY=1\nSTATUS=listening on \(names), \(fonts.fontCount) font faces, \(plugins.plugins.count) plugins")
        if configuration.shapeCacheFile != nil, configuration.shapeCacheWriteSeconds > 0 {
            service.startWritingShapeCacheFile(every: configuration.shapeCacheWriteSeconds)
        }
        let socketFiles = listeners.socketFiles
        server.serve(listeners: listeners.sockets)
        // Stopped by SIGTERM: the signal thread drains and exits.
        while server.stopped.load(ordering: .sequentiallyConsistent) { pause() }
        for file in socketFiles { unlink(file) }
        exit(1)
    }

    /// Warms the request path too (JSON in and out, the service, a worker thread and each
    /// event loop's thread), so that the first client request does not pay for first-use
    /// code, runtime metadata and a thread's first allocations.
    private func warmUpRequestPath(service: LayoutService, server: Server) {
        let warmUp: @Sendable () -> Void = { service.warmUp() }
        let done = DispatchSemaphore(value: 0)
        RequestScheduler.workers.async {
            warmUp()
            done.signal()
        }
        done.wait()
        warmUp()   // this thread runs the first loop
        server.startLoops(warmUp: warmUp)
    }

    /// A new engine from the configuration file, its fonts scanned again and warmed (for
    /// `reload` and SIGHUP).
    @Sendable func reloadEngine() throws -> (TextLayoutEngine, ServerConfiguration) {
        let fresh = try configurationPath.map { path in try ServerConfiguration.load(path: path) } ?? ServerConfiguration()
        if servesTCP.load(ordering: .relaxed), fresh.listeners.token == nil {
            throw ServerConfiguration.Failure(description: "\(fresh.source): no auth.tokenFile, which the open TCP listener needs")
        }
        if fresh.listeners.addresses != configuration.listeners.addresses {
            Log.warning("listen changed: listeners are opened at start, so the new ones take effect when layoutd restarts")
        }
        let fonts = try FontSystem(fontConfigPath: fresh.fontConfig, fingerprintParts: fingerprintParts, report: { Log.warning($0) })
        let engine = TextLayoutEngine(fonts: fonts, maxTextLength: fresh.engineTextLength, shapeCacheEntries: fresh.shapeCacheEntries,
                                      measureCacheEntries: fresh.measureCacheEntries)
        try Self.warmUp(engine, fresh)
        return (engine, fresh)
    }

    /// The plugins `configuration` names, with the command line's folders after its own.
    @Sendable func loadPlugins(_ configuration: ServerConfiguration) -> PluginSet {
        var settings = configuration.plugins
        settings.folders += options.pluginFolders
        if !options.builtinPlugins { settings.builtin = false }
        return PluginSet.load(settings, executable: Files.executablePath(), rasterizer: rasterizer)
    }
}
