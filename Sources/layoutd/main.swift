// layoutd — the text layout daemon. See README.md and docs/protocol.md.
import LayoutServer
#if canImport(Glibc)
import Glibc
#endif

let usage = """
    usage: layoutd [--socket PATH] [--config FILE] [--plugin-dir DIR]... [--no-builtin-plugins]
                   [--log-level debug|info|warning|error]
           layoutd --check-config FILE
           layoutd --help | --version

      --socket PATH   listen here (default $XDG_RUNTIME_DIR/layoutd/layoutd.sock,
                      or /tmp/layoutd-$UID/layoutd.sock), instead of the configuration's
                      unix: listeners (its tcp: ones stay); under socket activation
                      systemd hands layoutd its sockets instead
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

func fail(_ message: String, status: Int32 = 1) -> Never { Daemon.fail(message, status: status) }


// MARK: Memory
// Freed memory is kept for reuse (up to 64 MiB at the top of each of at most 4 malloc arenas;
// blocks below 32 MiB come from the arenas) rather than handed back to the kernel at once, so
// a large request or an update does not pay page faults for memory the request before it
// freed. Set before any thread starts.
// GLIBC_TUNABLES with malloc settings overrides this.
// (mallopt is glibc's, not in Swift's Glibc module: found with dlsym; the option numbers
// are <malloc.h>'s.)
if Daemon.environment("GLIBC_TUNABLES")?.contains("malloc") != true, let symbol = dlsym(nil, "mallopt") {
    let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    let arenaMax: Int32 = -8, mmapThreshold: Int32 = -3, trimThreshold: Int32 = -1
    _ = mallopt(arenaMax, 4)
    _ = mallopt(mmapThreshold, 32 << 20)
    _ = mallopt(trimThreshold, 64 << 20)
}

// MARK: Arguments
var options = DaemonOptions()
var probePlugin: String?
var probeOptions = "{}"
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--socket":
        guard let value = arguments.popFirst() else { fail("--socket needs a path\n\(usage)", status: 2) }
        options.socketPath = value
    case "--config":
        guard let value = arguments.popFirst() else { fail("--config needs a file\n\(usage)", status: 2) }
        options.configurationPath = value
    case "--plugin-dir":
        guard let value = arguments.popFirst() else { fail("--plugin-dir needs a folder\n\(usage)", status: 2) }
        options.pluginFolders.append(Files.absolute(value))
    case "--no-builtin-plugins":
        options.builtinPlugins = false
    case "--probe-plugin":
        // Internal: the child process that tries a plugin before the daemon loads it.
        guard let value = arguments.popFirst() else { fail("--probe-plugin needs a file", status: 2) }
        probePlugin = value
    case "--probe-options":
        guard let value = arguments.popFirst() else { fail("--probe-options needs JSON", status: 2) }
        probeOptions = value
    case "--check-config":
        guard let value = arguments.popFirst() else { fail("--check-config needs a file\n\(usage)", status: 2) }
        options.configurationPath = value
        options.checkOnly = true
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

// MARK: Running
let daemon = Daemon(options: options)
if options.checkOnly { daemon.printCheckedConfiguration() }
daemon.run()
