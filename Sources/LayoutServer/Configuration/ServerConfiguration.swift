import LayoutProtocol
import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// layoutd's configuration: the JSON file given with `--config` (see config/layoutd.json),
/// over built-in defaults. Relative paths in the file are relative to the file's folder.
public struct ServerConfiguration: Sendable {
    /// The fontconfig file that pins which fonts layoutd sees; nil: the system's.
    public var fontConfig: String?
    /// This daemon's name in a fleet, carried by its handles (letters, digits, `-`, `_`);
    /// nil: `derivedNodeId()`. Read at start.
    public var nodeId: String?
    /// Font used where a request names none (or leaves out part of it).
    public var defaultFamily = "sans-serif"
    public var defaultSize = 16.0
    /// Longest message line accepted, in bytes.
    public var maxMessageBytes = 16 << 20
    /// Longest `text` accepted, in UTF-16 units.
    public var maxTextLength = 4 << 20
    /// Longest text of a retained document (`layout` with `retain`, and what `update`s make
    /// of it), in UTF-16 units: editors keep whole files, one-shot requests stay bounded.
    public var maxDocumentLength = 64 << 20
    /// The engine's bound: the longer of the two, each request held to its own by the service.
    public var engineTextLength: Int { max(maxTextLength, maxDocumentLength) }
    /// Connections served at once; more are refused.
    public var maxConnections = 256
    /// Connections served at once for one uid.
    public var maxConnectionsPerUID = 128
    /// Seconds a message may stay half-sent, and a reply may wait for a peer that does not
    /// read, before the connection is dropped.
    public var partialMessageSeconds = 30.0
    public var sendTimeoutSeconds = 30.0
    /// On SIGTERM, how long requests in flight may take to finish before layoutd exits.
    public var drainSeconds = 10.0
    /// How long one request may run before it is stopped with an error.
    public var requestSeconds = 30.0
    /// How much CPU time one request may use before it is stopped with an error.
    public var requestCPUSeconds = 20.0
    /// Requests of one connection queued or running at once; reading waits past it.
    public var maxPendingPerConnection = 64
    /// The longest result sent (a longer one is answered with an error), and the answers
    /// buffered for one connection whose client does not read them; past it the connection
    /// is dropped (reading from it pauses at 4 MiB already).
    public var maxOutputBytes = 64 << 20
    /// Peers (by SO_PEERCRED uid) served; others get one error line. Default: the daemon's
    /// own uid and root.
    public var allowedUIDs: Set<UInt32> = [getuid(), 0]
    /// Groups whose members are served too (checked against the peer's gid and its
    /// supplementary groups), as named in the file and the gid each has. Default: none.
    public var allowedGroups: [(name: String, gid: UInt32)] = []

    /// The uids and groups admitted, for the refusal message and `--check-config`.
    public var allowedPeersSummary: String {
        let uids = "uids " + allowedUIDs.sorted().map(String.init).joined(separator: ", ")
        guard !allowedGroups.isEmpty else { return uids }
        return uids + "; groups " + allowedGroups.map { "\($0.name) (\($0.gid))" }.joined(separator: ", ")
    }
    /// Retained layouts kept at most (by count and by estimated bytes), least recently used
    /// evicted first.
    public var maxRetainedLayouts = 1000
    public var maxRetainedBytes = 256 << 20
    /// Shaped words kept across requests (the shape cache); 0 turns it off.
    public var shapeCacheEntries = 20_000
    /// Sizes of plain paragraphs (messages) `measure` keeps; 0 turns it off.
    public var measureCacheEntries = 4096
    /// Where the shape cache is kept across restarts (written at a clean stop, read back at
    /// start); nil: not kept. Default: `shaped-words` in systemd's `$CACHE_DIRECTORY` (the
    /// unit's `CacheDirectory=`) when set, else not kept; the file's key `shapeCacheFile`
    /// names another ("" for none).
    public var shapeCacheFile: String? = ServerConfiguration.defaultShapeCacheFile()
    /// How often the shape cache file is also written while words are being kept (so that a
    /// daemon killed or crashed leaves its recent ones), in seconds; 0: only at a clean stop.
    public var shapeCacheWriteSeconds = 600.0
    /// Event loop threads connections are spread over (0: one per core, 2 to 8). A loop
    /// answers short requests itself, without a worker, when their client is alone on it or
    /// the other cores have work; busy clients are moved to even the loops out.
    public var eventLoops = 0
    /// Plugins: folders, built-in ones, options, probing.
    public var plugins = PluginSettings()
    /// Listeners and the TCP peers' token.
    public var listeners = ListenerSettings()
    /// Where the configuration came from, for the log.
    public var source = "built-in defaults"

    public init() {}

    /// The event loops to run: `eventLoops`, or when 0 one per online core, 2 to 8.
    public var eventLoopCount: Int {
        if eventLoops > 0 { return eventLoops }
        return min(8, max(2, Self.onlineCores))
    }

    /// `shaped-words` in the first folder of `$CACHE_DIRECTORY` (which systemd sets for a
    /// unit's `CacheDirectory=`), or nil.
    static func defaultShapeCacheFile() -> String? {
        guard let value = getenv("CACHE_DIRECTORY").map({ String(cString: $0) }),
              let folder = value.split(separator: ":").first, !folder.isEmpty else { return nil }
        return "\(folder)/shaped-words"
    }

    /// The cores this machine has online (at least 1), read once.
    static let onlineCores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))

    /// One line per option and its value, for `layoutd --check-config`.
    public var summary: String {
        let limits: [(String, String)] = [
            ("maxMessageBytes", "\(maxMessageBytes)"), ("maxTextLength", "\(maxTextLength)"),
            ("maxDocumentLength", "\(maxDocumentLength)"),
            ("maxConnections", "\(maxConnections)"), ("maxConnectionsPerUid", "\(maxConnectionsPerUID)"),
            ("partialMessageSeconds", "\(partialMessageSeconds)"), ("sendTimeoutSeconds", "\(sendTimeoutSeconds)"),
            ("drainSeconds", "\(drainSeconds)"), ("requestSeconds", "\(requestSeconds)"),
            ("requestCPUSeconds", "\(requestCPUSeconds)"),
            ("maxPendingPerConnection", "\(maxPendingPerConnection)"), ("maxOutputBytes", "\(maxOutputBytes)"),
            ("retainedLayouts", "\(maxRetainedLayouts)"), ("retainedBytes", "\(maxRetainedBytes)"),
            ("shapeCacheEntries", "\(shapeCacheEntries)"), ("measureCacheEntries", "\(measureCacheEntries)"),
            ("eventLoops", eventLoops == 0 ? "0 (automatic: \(eventLoopCount))" : "\(eventLoops)"),
        ]
        var lines = [
            "nodeId: \(nodeId ?? "(derived at start from the host name and process id)")",
            "fontConfig: \(fontConfig ?? "(the system's fontconfig)")",
            "defaultFont: \(defaultFamily) \(defaultSize)",
            "shapeCacheFile: \(shapeCacheFile ?? "(none: the shape cache is not kept across restarts)")",
            "shapeCacheWriteSeconds: \(shapeCacheWriteSeconds)",
            "allowedUids: \(allowedUIDs.sorted().map(String.init).joined(separator: ", "))",
            "allowedGroups: \(allowedGroups.isEmpty ? "(none)" : allowedGroups.map { "\($0.name) (\($0.gid))" }.joined(separator: ", "))",
        ]
        lines += listeners.summary
        lines += limits.map { "limits.\($0.0): \($0.1)" }
        lines += [
            "plugins.folders: \(plugins.folders.isEmpty ? "(none)" : plugins.folders.joined(separator: ", "))",
            "plugins.builtin: \(plugins.builtin)",
            "plugins.disabled: \(plugins.disabled.isEmpty ? "(none)" : plugins.disabled.sorted().joined(separator: ", "))",
            "plugins.options: \(plugins.options.isEmpty ? "(none)" : plugins.options.keys.sorted().joined(separator: ", "))",
            "plugins.probe: \(plugins.probe)", "plugins.probeSeconds: \(plugins.probeSeconds)",
            "plugins.callSeconds: \(plugins.callSeconds)",
        ]
        return lines.joined(separator: "\n")
    }

    /// `nodeId`: 1 to 64 letters, digits, `-` and `_` (a handle's first part, before its `.`).
    static func nodeId(_ reader: ParamReader) throws(RPCError) -> String? {
        guard let id = try reader.string("nodeId", maxLength: 64) else { return nil }
        guard !id.isEmpty, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw .invalidParams(field: "nodeId", "must be 1 to 64 letters, digits, - and _, got \"\(id)\"")
        }
        return id
    }

    /// A node id for a daemon not given one: its host's name and its process id, so that
    /// daemons on one host, and one daemon's runs, differ.
    public static func derivedNodeId() -> String {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count) == 0 ? String(cString: name) : "node"
        let kept = String(host.prefix(48).map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "_" })
        return "\(kept.isEmpty ? "node" : kept)-\(getpid())"
    }

    /// Why a configuration file was refused.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The keys a configuration file may hold, at the top, in `defaultFont` and in `limits`;
    /// any other key is an error that names it.
    public static let topLevelKeys = ["nodeId", "listen", "auth", "fontConfig", "defaultFont", "shapeCacheFile", "shapeCacheWriteSeconds", "allowedUids", "allowedGroups", "limits", "plugins"]
    public static let pluginKeys = ["folders", "builtin", "disabled", "options", "probe", "probeSeconds", "callSeconds"]
    public static let defaultFontKeys = ["family", "size"]
    public static let limitKeys = [
        "maxMessageBytes", "maxTextLength", "maxDocumentLength", "maxConnections", "maxConnectionsPerUid",
        "partialMessageSeconds", "sendTimeoutSeconds", "drainSeconds", "requestSeconds", "requestCPUSeconds",
        "maxPendingPerConnection", "maxOutputBytes", "retainedLayouts", "retainedBytes", "shapeCacheEntries",
        "measureCacheEntries", "eventLoops",
    ]

    /// Reads `path`. Fails with a message naming the file and the member at fault (a wrong
    /// type, a value out of range, an unknown key).
    public static func load(path: String) throws(Failure) -> ServerConfiguration {
        let bytes: [UInt8]
        do { bytes = try Files.read(path, limit: 1 << 20) } catch { throw Failure(description: "\(error)") }
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch {
            throw Failure(description: "\(path): not valid JSON: \(error)")
        }
        guard json.isObject else { throw Failure(description: "\(path): expected a JSON object") }
        var config = ServerConfiguration()
        config.source = path
        let base = Files.directory(of: path)
        config.plugins.configFolder = Files.absolute(base)
        do {
            let reader = try ParamReader(json)
            try reader.rejectUnknownKeys(topLevelKeys)
            config.nodeId = try nodeId(reader)
            config.listeners = try ListenerSettings.read(reader, base: base)
            if let fc = try reader.string("fontConfig") { config.fontConfig = Files.resolve(fc, relativeTo: base) }
            if let file = try reader.string("shapeCacheFile") {
                config.shapeCacheFile = file.isEmpty ? nil : Files.resolve(file, relativeTo: base)
            }
            config.shapeCacheWriteSeconds = try reader.number("shapeCacheWriteSeconds", in: 0...86400, what: "seconds")
                ?? config.shapeCacheWriteSeconds
            if let font = try reader.object("defaultFont") {
                try font.rejectUnknownKeys(defaultFontKeys)
                let spec = try FontSpec(font)
                config.defaultFamily = spec.family ?? config.defaultFamily
                config.defaultSize = spec.size ?? config.defaultSize
            }
            if let v = reader.member("allowedUids") {
                guard let list = v.arrayValue else { throw RPCError.invalidParams(field: "allowedUids", "must be an array of uids") }
                var uids: Set<UInt32> = []
                for (i, item) in list.enumerated() {
                    guard let uid = item.intValue, uid >= 0, uid <= Int(UInt32.max) else {
                        throw RPCError.invalidParams(field: "allowedUids[\(i)]", "must be a uid (an integer ≥ 0)")
                    }
                    uids.insert(UInt32(uid))
                }
                config.allowedUIDs = uids
            }
            config.allowedGroups = try groups(reader)
            if let limits = try reader.object("limits") { try config.readLimits(limits) }
            if let plugins = try reader.object("plugins") {
                try plugins.rejectUnknownKeys(pluginKeys)
                config.plugins.folders = try stringList(plugins, "folders").map { Files.resolve($0, relativeTo: base) }
                config.plugins.builtin = try plugins.bool("builtin") ?? true
                config.plugins.disabled = Set(try stringList(plugins, "disabled"))
                if let v = plugins.member("options") {
                    guard case .object(let members) = v else { throw RPCError.invalidParams(field: "plugins.options", "must be an object of plugin name → options") }
                    for (name, options) in members {
                        guard options.isObject else { throw RPCError.invalidParams(field: "plugins.options.\(name)", "must be an object (the plugin's options)") }
                        config.plugins.options[name] = options
                    }
                }
                config.plugins.probe = try plugins.bool("probe") ?? true
                config.plugins.probeSeconds = try plugins.number("probeSeconds", in: 0.1...600, what: "seconds") ?? 5
                config.plugins.callSeconds = try plugins.number("callSeconds", in: 0.01...600, what: "seconds") ?? 5
            }
        } catch {
            let message = (error as? RPCError)?.message ?? "\(error)"
            throw Failure(description: "\(path): \(message.replacingPrefix("invalid params: ", with: ""))")
        }
        return config
    }

    /// The `limits` object of a configuration file, over the defaults.
    private mutating func readLimits(_ limits: ParamReader) throws(RPCError) {
        try limits.rejectUnknownKeys(Self.limitKeys)
        maxMessageBytes = try limits.integer("maxMessageBytes", in: 1024...(1 << 30)) ?? maxMessageBytes
        maxTextLength = try limits.integer("maxTextLength", in: 1...(64 << 20)) ?? maxTextLength
        maxDocumentLength = try limits.integer("maxDocumentLength", in: 1...(256 << 20)) ?? maxDocumentLength
        maxConnections = try limits.integer("maxConnections", in: 1...65536) ?? maxConnections
        maxRetainedLayouts = try limits.integer("retainedLayouts", in: 0...10_000_000) ?? maxRetainedLayouts
        maxConnectionsPerUID = try limits.integer("maxConnectionsPerUid", in: 1...65536) ?? maxConnectionsPerUID
        partialMessageSeconds = try limits.number("partialMessageSeconds", in: 0.001...86400, what: "seconds") ?? partialMessageSeconds
        sendTimeoutSeconds = try limits.number("sendTimeoutSeconds", in: 0.001...86400, what: "seconds") ?? sendTimeoutSeconds
        drainSeconds = try limits.number("drainSeconds", in: 0...3600, what: "seconds") ?? drainSeconds
        requestSeconds = try limits.number("requestSeconds", in: 0.001...86400, what: "seconds") ?? requestSeconds
        requestCPUSeconds = try limits.number("requestCPUSeconds", in: 0.001...86400, what: "seconds") ?? requestCPUSeconds
        maxPendingPerConnection = try limits.integer("maxPendingPerConnection", in: 1...100_000) ?? maxPendingPerConnection
        maxRetainedBytes = try limits.integer("retainedBytes", in: 0...(1 << 40)) ?? maxRetainedBytes
        maxOutputBytes = try limits.integer("maxOutputBytes", in: 65_536...(1 << 34)) ?? maxOutputBytes
        shapeCacheEntries = try limits.integer("shapeCacheEntries", in: 0...10_000_000) ?? shapeCacheEntries
        measureCacheEntries = try limits.integer("measureCacheEntries", in: 0...1_000_000) ?? measureCacheEntries
        eventLoops = try limits.integer("eventLoops", in: 0...64) ?? eventLoops
    }

    /// `allowedGroups`: group names (looked up now: a name the system does not know is an
    /// error that says so) or gids.
    private static func groups(_ reader: ParamReader) throws(RPCError) -> [(name: String, gid: UInt32)] {
        guard let v = reader.member("allowedGroups") else { return [] }
        guard let list = v.arrayValue else { throw .invalidParams(field: "allowedGroups", "must be an array of group names or gids") }
        var groups: [(name: String, gid: UInt32)] = []
        for (i, item) in list.enumerated() {
            if let gid = item.intValue, gid >= 0, gid <= Int(UInt32.max) {
                groups.append((String(gid), UInt32(gid)))
            } else if let name = item.stringValue, !name.isEmpty {
                guard let entry = getgrnam(name) else {
                    throw .invalidParams(field: "allowedGroups[\(i)]", "names the group \"\(name)\", which this system does not have (create it with `addgroup --system \(name)`)")
                }
                groups.append((name, entry.pointee.gr_gid))
            } else {
                throw .invalidParams(field: "allowedGroups[\(i)]", "must be a group name or a gid (an integer ≥ 0)")
            }
        }
        return groups
    }

    private static func stringList(_ reader: ParamReader, _ key: String) throws(RPCError) -> [String] {
        guard let v = reader.member(key) else { return [] }
        guard let items = v.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
            throw .invalidParams(field: reader.field(key), "must be an array of strings")
        }
        return items.compactMap(\.stringValue)
    }

    /// The configuration file to use when `--config` is not given: `$LAYOUTD_CONFIG`, then
    /// `/etc/layoutd/layoutd.json`, then `config/layoutd.json` of the source tree the
    /// executable was built in (found by walking up from it), else nil (built-in defaults).
    public static func defaultPath(environment: (String) -> String?) -> String? {
        if let env = environment("LAYOUTD_CONFIG"), !env.isEmpty { return env }
        if Files.exists("/etc/layoutd/layoutd.json") { return "/etc/layoutd/layoutd.json" }
        guard var dir = Files.executablePath().map(Files.directory(of:)) else { return nil }
        for _ in 0..<6 {
            let candidate = "\(dir)/config/layoutd.json"
            if Files.exists(candidate) { return candidate }
            if dir == "/" { break }
            dir = Files.directory(of: dir)
        }
        return nil
    }
}

extension String {
    func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }
}
