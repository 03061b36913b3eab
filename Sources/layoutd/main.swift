// layoutd — the text layout daemon. See README.md and docs/protocol.md.
import Dispatch
import GlyphRaster
import LayoutEngine
import LayoutProtocol
import LayoutServer
import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

let usage = """
    usage: layoutd [--socket PATH] [--config FILE] [--plugin-dir DIR]... [--no-builtin-plugins]
                   [--log-level debug|info|warning|error]
           layoutd --check-config FILE
           layoutd --help | --version

      --socket PATH   listen here (default $XDG_RUNTIME_DIR/layoutd/layoutd.sock,
                      or /tmp/layoutd-$UID/layoutd.sock); under socket activation systemd
                      hands layoutd its socket instead
      --config FILE   configuration (default $LAYOUTD_CONFIG, /etc/layoutd/layoutd.json,
                      or config/layoutd.json of the source tree layoutd was built in)
      --plugin-dir DIR
                      also load the plugins (*.so) in DIR, after the configured folders;
                      repeatable
      --no-builtin-plugins
                      do not load the built-in plugins (PREFIX/lib/layoutd/plugins when
                      installed, else those beside layoutd)
      --log-level LEVEL
                      log LEVEL and above: debug, info (the default), warning or error
      --check-config FILE
                      validate FILE (every key known, every value in range, the fonts it
                      names load), print the settings, exit 0 when good, 1 when not
      -h, --help      this help
      --version       the version
    """

func fail(_ message: String, status: Int32 = 1) -> Never {
    Log.error(message)
    exit(status)
}

func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

// MARK: Memory
// Freed memory is kept for reuse (up to 64 MiB at the top of each of at most 4 malloc arenas;
// blocks below 32 MiB come from the arenas) rather than handed back to the kernel at once, so
// a large request or an update does not pay page faults for memory the request before it
// freed (a 1 MB paragraph lays out about 15% faster). Set before any thread starts.
// GLIBC_TUNABLES with malloc settings overrides this.
// (mallopt is glibc's, not in Swift's Glibc module: found with dlsym; the option numbers
// are <malloc.h>'s.)
if environment("GLIBC_TUNABLES")?.contains("malloc") != true, let symbol = dlsym(nil, "mallopt") {
    let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    let arenaMax: Int32 = -8, mmapThreshold: Int32 = -3, trimThreshold: Int32 = -1
    _ = mallopt(arenaMax, 4)
    _ = mallopt(mmapThreshold, 32 << 20)
    _ = mallopt(trimThreshold, 64 << 20)
}

// MARK: Arguments
var socketPath: String?
var configPath: String?
var checkOnly = false
var pluginDirs: [String] = []
var builtinPlugins = true
var probePlugin: String?
var probeOptions = "{}"
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--socket":
        guard let value = arguments.popFirst() else { fail("--socket needs a path\n\(usage)", status: 2) }
        socketPath = value
    case "--config":
        guard let value = arguments.popFirst() else { fail("--config needs a file\n\(usage)", status: 2) }
        configPath = value
    case "--plugin-dir":
        guard let value = arguments.popFirst() else { fail("--plugin-dir needs a folder\n\(usage)", status: 2) }
        pluginDirs.append(Files.absolute(value))
    case "--no-builtin-plugins":
        builtinPlugins = false
    case "--probe-plugin":
        // Internal: the child process that tries a plugin before the daemon loads it.
        guard let value = arguments.popFirst() else { fail("--probe-plugin needs a file", status: 2) }
        probePlugin = value
    case "--probe-options":
        guard let value = arguments.popFirst() else { fail("--probe-options needs JSON", status: 2) }
        probeOptions = value
    case "--check-config":
        guard let value = arguments.popFirst() else { fail("--check-config needs a file\n\(usage)", status: 2) }
        configPath = value
        checkOnly = true
    case "--log-level":
        let levels: [String: Log.Level] = ["debug": .debug, "info": .info, "warning": .warning, "error": .error]
        guard let value = arguments.popFirst(), let level = levels[value] else {
            fail("--log-level needs one of debug, info, warning, error", status: 2)
        }
        Log.setMinimumLevel(level)
    case "--version":
        print("\(LayoutService.serverName) \(LayoutService.serverVersion)")
        exit(0)
    case "-h", "--help":
        print(usage)
        exit(0)
    default:
        fail("unknown argument \(argument)\n\(usage)", status: 2)
    }
}

if let probePlugin { exit(PluginProbe.child(plugin: probePlugin, optionsJSON: probeOptions)) }
let commandLinePluginDirs = pluginDirs
let loadBuiltinPlugins = builtinPlugins

// MARK: Configuration and fonts
let configurationPath = configPath ?? ServerConfiguration.defaultPath(environment: environment)
let configuration: ServerConfiguration
if let configurationPath {
    do { configuration = try ServerConfiguration.load(path: configurationPath) } catch { fail("bad configuration: \(error)") }
} else {
    configuration = ServerConfiguration()
}
let fonts: FontSystem
do {
    fonts = try FontSystem(fontConfigPath: configuration.fontConfig, report: { Log.warning($0) })
} catch {
    fail("\(error)")
}
Log.info("configuration: \(configuration.source); fonts: \(configuration.fontConfig ?? "system fontconfig") (\(fonts.fontCount) faces)")
if fonts.fontCount == 0 { fail("the font configuration lists no fonts; install the font packages (scripts/setup)") }
/// The configuration's plugin settings with the command line's over them.
func pluginSettings(_ configuration: ServerConfiguration) -> PluginSettings {
    var settings = configuration.plugins
    settings.folders += commandLinePluginDirs
    if !loadBuiltinPlugins { settings.builtin = false }
    return settings
}
let rasterizer: GlyphRasterizer?
do { rasterizer = try GlyphRasterizer() } catch {
    Log.warning("no glyph rasterizer (render will draw no glyphs): \(error)")
    rasterizer = nil
}
if checkOnly {
    print("\(configuration.source): ok (\(fonts.fontCount) font faces)\n\(configuration.summary)")
    exit(0)
}

let engine = TextLayoutEngine(fonts: fonts, maxTextLength: configuration.maxTextLength,
                              shapeCacheEntries: configuration.shapeCacheEntries)
// Warm the default font and the fallbacks the common scripts need before taking requests.
let warmUpText = "Hello, world — Привет, Γειά σου, مرحبا, שלום, नमस्ते, 你好, こんにちは, 안녕하세요, สวัสดี"
do {
    _ = try engine.layout(LayoutRequest(
        text: Array(warmUpText.utf16), width: 200,
        font: FontDescriptor(family: configuration.defaultFamily, size: configuration.defaultSize)))
} catch {
    fail("cannot lay out text with the configured fonts: \(error)")
}

// MARK: Signals
signal(SIGPIPE, SIG_IGN)
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
sigaddset(&stopSignals, SIGTERM)
sigaddset(&stopSignals, SIGINT)
sigaddset(&stopSignals, SIGHUP)
pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

// MARK: Socket and serving
// Under systemd socket activation the listening socket is file descriptor 3 and systemd owns
// its file; otherwise layoutd makes its own.
let activated = Systemd.activatedListener()
let path = activated == nil ? (socketPath ?? UnixSocket.defaultDaemonPath()) : "(socket activation)"

func openListener() -> FileDescriptor {
    if let activated { return FileDescriptor(adopting: activated) }
    do { return try SocketPath.listen(at: path) } catch { fail("\(error)") }
}

/// SIGHUP: reload (configuration and fonts). SIGTERM and SIGINT: tell systemd, remove the
/// socket file (unless systemd owns it), exit.
func startSignalThread(_ signals: sigset_t, service: LayoutService, server: Server) {
    do {
        try spawnDetachedThread {
            var set = signals
            var received: Int32 = 0
            while true {
                sigwait(&set, &received)
                guard received == SIGHUP else { break }
                Log.info("SIGHUP: reloading")
                Systemd.notify("RELOADING=1")
                do {
                    let fingerprint = try service.reload()
                    Log.info("reloaded; font fingerprint \(fingerprint)")
                } catch {
                    Log.error("\((error as? RPCError)?.message ?? "\(error)")")
                }
                Systemd.notify("READY=1\nSTATUS=reloaded; \(service.engine.fonts.fontCount) font faces")
            }
            // Drain: accept no more, let requests in flight finish (up to drainSeconds), exit 0.
            Log.info("signal \(received): stopping")
            Systemd.notify("STOPPING=1")
            server.stopAccepting()
            if activated == nil { unlink(path) }
            if !server.drain(seconds: service.configuration.drainSeconds) {
                Log.warning("requests still running after \(service.configuration.drainSeconds) s; exiting")
            }
            if let file = service.configuration.shapeCacheFile { service.saveShapeCacheFile(to: file, final: true) }
            exit(0)
        }
    } catch {
        fail("cannot start the signal thread: \(error)")
    }
}

/// WATCHDOG=1 at half the interval systemd asked for.
func startWatchdog() {
    guard let interval = Systemd.watchdogInterval() else { return }
    do {
        try spawnDetachedThread {
            while true {
                Systemd.notify("WATCHDOG=1")
                usleep(interval)
            }
        }
    } catch {
        Log.warning("cannot start the watchdog thread: \(error)")
    }
}

/// A new engine from the configuration file, its fonts scanned again and warmed.
@Sendable func reloadEngine() throws -> (TextLayoutEngine, ServerConfiguration) {
    let fresh = try configurationPath.map { path in try ServerConfiguration.load(path: path) } ?? ServerConfiguration()
    let fonts = try FontSystem(fontConfigPath: fresh.fontConfig, report: { Log.warning($0) })
    let engine = TextLayoutEngine(fonts: fonts, maxTextLength: fresh.maxTextLength, shapeCacheEntries: fresh.shapeCacheEntries)
    _ = try engine.layout(LayoutRequest(text: Array(warmUpText.utf16), width: 200,
                                        font: FontDescriptor(family: fresh.defaultFamily, size: fresh.defaultSize)))
    return (engine, fresh)
}

@Sendable func loadPlugins(_ configuration: ServerConfiguration) -> PluginSet {
    PluginSet.load(pluginSettings(configuration), executable: Files.executablePath(), rasterizer: rasterizer)
}

@MainActor func run(listener: consuming FileDescriptor) -> Never {
    let plugins = loadPlugins(configuration)
    let service = LayoutService(engine: engine, configuration: configuration, reloader: reloadEngine,
                                plugins: plugins, pluginLoader: loadPlugins)
    // The words a previous run shaped, before the first request.
    if let file = configuration.shapeCacheFile { service.restoreShapeCacheFile(from: file) }
    let server = Server(service: service)
    startSignalThread(stopSignals, service: service, server: server)
    startWatchdog()
    print("layoutd listening on \(path)")
    fflush(nil)
    Log.info("listening on \(path)")
    // Warm the request path too (JSON in and out, the service, a worker thread and each event
    // loop's thread), so that the first client request does not pay for first-use code,
    // runtime metadata and a thread's first allocations.
    let warmUp: @Sendable () -> Void = { service.warmUp() }
    let done = DispatchSemaphore(value: 0)
    Server.workers.async {
        warmUp()
        done.signal()
    }
    done.wait()
    warmUp()   // this thread runs the first loop
    server.startLoops(warmUp: warmUp)
    // Fonts are warm and the listener is live: ready.
    Systemd.notify("READY=1\nSTATUS=listening on \(path), \(fonts.fontCount) font faces, \(plugins.plugins.count) plugins")
    if configuration.shapeCacheFile != nil, configuration.shapeCacheWriteSeconds > 0 {
        service.startWritingShapeCacheFile(every: configuration.shapeCacheWriteSeconds)
    }
    server.serve(listener: listener)
    // Stopped by SIGTERM: the signal thread drains and exits.
    while server.stopped.load(ordering: .sequentiallyConsistent) { pause() }
    if activated == nil { unlink(path) }
    exit(1)
}

run(listener: openListener())
