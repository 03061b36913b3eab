import GlyphRaster
import LayoutEngine
import LayoutProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Where plugins come from and how they are set up: the `plugins` section of the
/// configuration plus `--plugin-dir` folders.
public struct PluginSettings: Sendable {
    /// Folders scanned for `*.so`, in order; a name already loaded from an earlier folder is
    /// refused later.
    public var folders: [String] = []
    /// Also load the plugins installed beside the executable (`liblayoutd-plugin-*.so`).
    public var builtin = true
    /// Plugin names not to load.
    public var disabled: Set<String> = []
    /// Each plugin's options, by name (handed to its `init`).
    public var options: [String: JSONValue] = [:]
    /// Try each plugin in a child process first (load, init, one call); refuse it when the
    /// child crashes, fails or runs longer than `probeSeconds`.
    public var probe = true
    public var probeSeconds = 5.0
    /// Longest one call into a plugin may run; past it the call is stopped and the plugin
    /// disabled until the next reload (as when it crashes in a call).
    public var callSeconds = 5.0
    /// The configuration file's folder: image files plugins register from their options
    /// (`register_image`) are relative to it.
    public var configFolder = "."

    public init() {}
}

/// The plugins loaded at start (or by the last reload) and those refused. Immutable; a reload
/// makes a new set, and each request uses the set that was current when it started.
public final class PluginSet: Sendable {
    public let plugins: [LoadedPlugin]
    public let failures: [PluginFailure]
    /// The images the plugins registered at `init`, for renderers.
    let images: AttachmentImages

    init(plugins: [LoadedPlugin], failures: [PluginFailure], images: AttachmentImages) {
        self.plugins = plugins
        self.failures = failures
        self.images = images
    }

    /// No plugins.
    public static let empty = PluginSet(plugins: [], failures: [], images: AttachmentImages(base: "."))

    /// The link detector for `kind`: the first loaded that lists it.
    func detector(for kind: String) -> LoadedPlugin? {
        plugins.first { $0.kind == .linkDetector && $0.kinds.contains(kind) }
    }

    var attachmentProviders: [LoadedPlugin] { plugins.filter { $0.kind == .attachmentProvider } }

    func attachmentProvider(named name: String) -> LoadedPlugin? {
        plugins.first { $0.kind == .attachmentProvider && ($0.name == name || $0.kinds.contains(name)) }
    }

    func renderer(named name: String) -> LoadedPlugin? {
        plugins.first { $0.kind == .lineRenderer && ($0.name == name || $0.kinds.contains(name)) }
    }

    /// Every link kind some loaded detector provides.
    var detectorKinds: [String] { plugins.filter { $0.kind == .linkDetector }.flatMap(\.kinds) }

    /// `[{name, kind, version, provides}]` for `initialize`.
    var summaryJSON: JSONValue { .array(plugins.map(\.summaryJSON)) }

    /// Loaded and failed plugins with their call counters, for `stats`.
    var statsJSON: JSONValue {
        [
            "loaded": .array(plugins.map { p in
                ["name": .string(p.name), "kind": .string(p.kind.rawValue), "version": .string(p.version),
                 "path": .string(p.path), "calls": .number(Double(p.calls.load(ordering: .relaxed))),
                 "failedCalls": .number(Double(p.failedCalls.load(ordering: .relaxed))),
                 "droppedResults": .number(Double(p.dropped.load(ordering: .relaxed))),
                 "disabled": p.disabledReason.map { .string($0) } ?? .null]
            }),
            "failed": .array(failures.map { ["path": .string($0.path), "reason": .string($0.reason)] }),
        ]
    }

    /// Where the built-in plugins are: `PREFIX/lib/layoutd/plugins` for an installed
    /// `PREFIX/bin/layoutd` (scripts/install, the Debian package), else the executable's own
    /// folder (a build tree: SwiftPM puts them beside it).
    public static func builtinFolder(_ executable: String) -> String {
        let folder = Files.directory(of: executable)
        let installed = Files.directory(of: folder) + "/lib/layoutd/plugins"
        var info = stat()
        return stat(installed, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR ? installed : folder
    }

    /// Loads every plugin `settings` names: the built-in ones beside `executable` (when
    /// `builtin`), then each folder's `*.so` in name order. A folder or file that others may
    /// write (group or world writable, or owned by someone other than this user or root) is
    /// refused: loading it would run their code. Each plugin is probed in a child process
    /// (`probeExecutable --probe-plugin`) before it is loaded here, unless `probe` is off or
    /// there is no executable to probe with. Every refusal is logged with its reason and
    /// kept in `failures`; loading never fails as a whole.
    public static func load(_ settings: PluginSettings, executable: String?, rasterizer: GlyphRasterizer?) -> PluginSet {
        var candidates: [String] = []
        var failures: [PluginFailure] = []
        if settings.builtin, let executable {
            candidates += Self.sharedObjects(in: builtinFolder(executable), failures: &failures, matching: "liblayoutd-plugin-")
        }
        for folder in settings.folders {
            candidates += Self.sharedObjects(in: folder, failures: &failures, matching: nil)
        }
        var loaded: [LoadedPlugin] = []
        var seenPaths: Set<String> = []
        let images = AttachmentImages(base: settings.configFolder)
        for path in candidates where seenPaths.insert(path).inserted {
            if let reason = Self.unsafeOwnership(path) {
                failures.append(PluginFailure(path: path, reason: reason))
                continue
            }
            // The name is only known after loading; options are looked up by the file's
            // plugin name guess first (liblayoutd-plugin-NAME.so or NAME.so), then by the real name.
            let guess = Self.nameGuess(path)
            if settings.disabled.contains(guess) { continue }
            let options = settings.options[guess] ?? [:]
            if settings.probe, let executable {
                if let reason = PluginProbe.run(executable: executable, plugin: path, options: options,
                                                 seconds: settings.probeSeconds) {
                    failures.append(PluginFailure(path: path, reason: reason))
                    continue
                }
            }
            switch LoadedPlugin.open(path: path, options: options, rasterizer: rasterizer, images: images, taken: Set(loaded.map(\.name)),
                                     callSeconds: settings.callSeconds) {
            case .success(let plugin):
                if settings.disabled.contains(plugin.name) { continue }
                loaded.append(plugin)
            case .failure(let failure):
                failures.append(failure)
            }
        }
        for failure in failures { Log.warning("plugin refused: \(failure)") }
        for plugin in loaded {
            Log.info("plugin loaded: \(plugin.name) \(plugin.version) (\(plugin.kind.rawValue): \(plugin.kinds.joined(separator: ", "))) from \(plugin.path)")
        }
        return PluginSet(plugins: loaded, failures: failures, images: images)
    }

    /// `liblayoutd-plugin-links.so` → "links"; `foo.so` → "foo"; `libfoo.so` → "foo".
    static func nameGuess(_ path: String) -> String {
        var name = String(path.split(separator: "/").last ?? "")
        if name.hasSuffix(".so") { name.removeLast(3) }
        for prefix in ["liblayoutd-plugin-", "lib"] where name.hasPrefix(prefix) {
            name.removeFirst(prefix.count)
            break
        }
        return name
    }

    /// The `*.so` files of a folder (only those starting with `prefix` when given), sorted;
    /// a missing or unsafe folder adds a failure.
    private static func sharedObjects(in folder: String, failures: inout [PluginFailure], matching prefix: String?) -> [String] {
        guard let dir = opendir(folder) else {
            if prefix == nil { failures.append(PluginFailure(path: folder, reason: "plugin folder cannot be read: \(String(cString: strerror(errno)))")) }
            return []
        }
        defer { closedir(dir) }
        if prefix == nil, let reason = unsafeOwnership(folder) {
            failures.append(PluginFailure(path: folder, reason: reason))
            return []
        }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasSuffix(".so"), !name.hasPrefix(".") else { continue }
            if let prefix, !name.hasPrefix(prefix) { continue }
            names.append(name)
        }
        return names.sorted().map { folder.hasSuffix("/") ? folder + $0 : "\(folder)/\($0)" }
    }

    /// Why a file or folder is not safe to load code from, or nil: writable by group or
    /// others, or owned by another user than this one or root.
    static func unsafeOwnership(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return "cannot be examined: \(String(cString: strerror(errno)))" }
        if st.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            return "is writable by others (mode \(String(st.st_mode & 0o777, radix: 8))): refused, since anyone who can write it could run code in layoutd; chmod go-w it"
        }
        if st.st_uid != getuid() && st.st_uid != 0 {
            return "is owned by uid \(st.st_uid), neither layoutd's user (\(getuid())) nor root: refused"
        }
        return nil
    }
}
