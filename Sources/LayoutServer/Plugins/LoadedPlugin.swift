import CLayoutPlugin
import GlyphRaster
import LayoutEngine
import LayoutProtocol
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What a plugin does, as `initialize` and `stats` name it.
public enum PluginKind: String, Sendable {
    case linkDetector = "linkDetector"
    case attachmentProvider = "attachmentProvider"
    case lineRenderer = "lineRenderer"

    init?(abi: UInt32) {
        switch abi {
        case UInt32(LAYOUTD_KIND_LINK_DETECTOR.rawValue): self = .linkDetector
        case UInt32(LAYOUTD_KIND_ATTACHMENT_PROVIDER.rawValue): self = .attachmentProvider
        case UInt32(LAYOUTD_KIND_LINE_RENDERER.rawValue): self = .lineRenderer
        default: return nil
        }
    }
}

/// Why a plugin was refused: its file and a reason a person can act on.
public struct PluginFailure: Sendable, Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}

/// What the host gives every plugin through `layoutd_host`: the plugin's name for its log
/// lines, the glyph rasterizer and the load's attachment images (registered only while
/// `init` runs). Kept alive by the plugin that points to it.
final class PluginHostContext: @unchecked Sendable {
    let name: String
    let rasterizer: GlyphRasterizer?
    let images: AttachmentImages?
    /// True until the plugin's `init` returns: `register_image` is refused after it.
    let initializing = Atomic<Bool>(true)
    init(name: String, rasterizer: GlyphRasterizer?, images: AttachmentImages?) {
        self.name = name
        self.rasterizer = rasterizer
        self.images = images
    }
}

/// One loaded, initialized plugin: the sole owner of its `dlopen` handle, its `layoutd_host`
/// table and the state its `init` made. `deinit` calls `fini` and closes the object, so a
/// plugin stays loaded while any request still holds it (a reload swaps the set; calls in
/// flight finish with the plugins they started with). Calls are thread-safe as far as the
/// plugin keeps the ABI's promise.
public final class LoadedPlugin: @unchecked Sendable {
    public let name: String
    public let version: String
    public let kind: PluginKind
    /// What it provides: the link kinds it detects, or its own names.
    public let kinds: [String]
    public let path: String
    let table: UnsafePointer<layoutd_plugin>
    let state: UnsafeMutableRawPointer?
    private let handle: UnsafeMutableRawPointer
    private let host: UnsafeMutablePointer<layoutd_host>
    private let context: PluginHostContext

    /// Results dropped because they broke the ABI's rules, since load (for `stats`).
    let dropped = Atomic<Int>(0)
    /// Calls made, and calls that returned an error.
    let calls = Atomic<Int>(0)
    let failedCalls = Atomic<Int>(0)
    /// Longest a call may run before the guard stops it.
    let callSeconds: Double
    /// Why the plugin was disabled (it crashed or hung in a call), or nil.
    private let disabled = Mutex<String?>(nil)
    var disabledReason: String? { disabled.withLock { $0 } }
    func disable(_ reason: String) { disabled.withLock { if $0 == nil { $0 = reason } } }

    private init(name: String, version: String, kind: PluginKind, kinds: [String], path: String,
                 table: UnsafePointer<layoutd_plugin>, state: UnsafeMutableRawPointer?, handle: UnsafeMutableRawPointer,
                 host: UnsafeMutablePointer<layoutd_host>, context: PluginHostContext, callSeconds: Double) {
        self.callSeconds = callSeconds
        self.name = name; self.version = version; self.kind = kind; self.kinds = kinds; self.path = path
        self.table = table; self.state = state; self.handle = handle; self.host = host; self.context = context
    }

    deinit {
        // A plugin stopped mid-call may hold its locks or broken state: leave it be (its
        // memory and mapping stay; it is never called again).
        guard disabledReason == nil else { return }
        table.pointee.fini?(state)
        host.deinitialize(count: 1)
        host.deallocate()
        dlclose(handle)
    }

    /// Loads the shared object at `path`, checks its table against this host's ABI and calls
    /// its `init` with `options` (its section of the configuration). Fails with the reason
    /// when the file cannot be opened, has no entry point, returns no table, the table has
    /// another ABI version, is smaller than this host's, names an unknown kind, an invalid or
    /// taken name, lacks the function its kind needs, or `init` fails. Runs the plugin's code
    /// in this process: probe it in a child first (`PluginProbe`).
    static func open(path: String, options: JSONValue, rasterizer: GlyphRasterizer?, images: AttachmentImages? = nil,
                     taken: Set<String> = [], callSeconds: Double = 5) -> Result<LoadedPlugin, PluginFailure> {
        func failure(_ reason: String) -> Result<LoadedPlugin, PluginFailure> { .failure(PluginFailure(path: path, reason: reason)) }
        _ = dlerror()
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            return failure("cannot be loaded: \(dlerror().map { String(cString: $0) } ?? "dlopen failed")")
        }
        var keep = false
        defer { if !keep { dlclose(handle) } }
        guard let symbol = dlsym(handle, LAYOUTD_PLUGIN_ENTRY_SYMBOL) else {
            return failure("has no entry point \(LAYOUTD_PLUGIN_ENTRY_SYMBOL) (is it a layoutd plugin? see docs/plugins.md)")
        }
        let entry = unsafeBitCast(symbol, to: layoutd_plugin_entry_fn.self)
        guard let table = entry(LAYOUTD_PLUGIN_ABI_VERSION) else {
            return failure("its entry point returned no table for ABI version \(LAYOUTD_PLUGIN_ABI_VERSION)")
        }
        let t = table.pointee
        guard t.abi_version == LAYOUTD_PLUGIN_ABI_VERSION else {
            return failure("is built for plugin ABI version \(t.abi_version); this layoutd speaks version \(LAYOUTD_PLUGIN_ABI_VERSION) (rebuild it against this layoutd_plugin.h)")
        }
        let expected = MemoryLayout<layoutd_plugin>.size
        guard Int(t.struct_size) >= expected else {
            return failure("its table is \(t.struct_size) bytes; ABI version \(LAYOUTD_PLUGIN_ABI_VERSION) needs \(expected) (rebuild it against this layoutd_plugin.h)")
        }
        guard let kind = PluginKind(abi: t.kind) else { return failure("names an unknown plugin kind \(t.kind)") }
        guard let namePointer = t.name else { return failure("has no name") }
        let name = String(cString: namePointer)
        guard !name.isEmpty, name.utf8.count <= 64,
              name.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2D }) else {
            return failure("has an invalid name \"\(name)\" (use 1–64 of a–z, 0–9, _ and -)")
        }
        guard !taken.contains(name) else { return failure("is named \"\(name)\", which a plugin loaded earlier already uses") }
        let version = t.version.map { String(cString: $0) } ?? ""
        var kinds: [String] = []
        if var p = t.kinds {
            while let k = p.pointee, kinds.count < 256 {
                kinds.append(String(cString: k))
                p += 1
            }
        }
        if kinds.isEmpty { kinds = [name] }
        switch kind {
        case .linkDetector where t.detect == nil: return failure("is a link detector without a detect function")
        case .attachmentProvider where t.attachments == nil: return failure("is an attachment provider without an attachments function")
        case .lineRenderer where t.decorate == nil && t.draw == nil: return failure("is a line renderer with neither decorate nor draw")
        default: break
        }
        guard let initialize = t.`init` else { return failure("has no init function") }

        let context = PluginHostContext(name: name, rasterizer: rasterizer, images: images)
        let host = UnsafeMutablePointer<layoutd_host>.allocate(capacity: 1)
        host.initialize(to: PluginHostServices.table(context: context))
        let arena = CArena()
        var state: UnsafeMutableRawPointer?
        var error = [CChar](repeating: 0, count: 512)
        let status = initialize(host, arena.value(options), &state, &error, error.count)
        context.initializing.store(false, ordering: .releasing)
        guard status == 0 else {
            host.deinitialize(count: 1)
            host.deallocate()
            return failure("its init failed (\(status)): \(pluginMessage(error, fallback: "no message"))")
        }
        keep = true
        return .success(LoadedPlugin(name: name, version: version, kind: kind, kinds: kinds, path: path, table: table,
                                     state: state, handle: handle, host: host, context: context, callSeconds: callSeconds))
    }

    /// `{name, kind, version}` as `initialize` lists it.
    var summaryJSON: JSONValue {
        ["name": .string(name), "kind": .string(kind.rawValue), "version": .string(version),
         "provides": .array(kinds.map { .string($0) })]
    }
}
