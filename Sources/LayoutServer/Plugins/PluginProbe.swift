import CLayoutPlugin
import GlyphRaster
import LayoutEngine
import LayoutProtocol
import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// Tries a plugin in a child process before the daemon loads it: the child (`layoutd
/// --probe-plugin FILE --probe-options JSON`) loads it, calls `init`, makes one call of its
/// kind on sample text and exits 0. A plugin whose child crashes, fails or is still running
/// after the time limit is refused, so that a plugin broken at load never takes the daemon
/// down. What it cannot catch: a plugin that crashes only on some later input (see
/// docs/plugins.md, "Isolation").
public enum PluginProbe {
    /// Text every probe call gets: several scripts, a link, a mention, a shortcode.
    static let sampleText = "Probe: https://example.com/a?b=1 @name #tag [smile] 你好，世界 مرحبا 👍🏽"

    /// Runs the probe child; nil when the plugin passed, else why it was refused.
    static func run(executable: String, plugin: String, options: JSONValue, seconds: Double) -> String? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return "cannot be probed: pipe: \(String(cString: strerror(errno)))" }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        var readEnd = FileDescriptor(adopting: fds[0])
        var writeEnd = FileDescriptor(adopting: fds[1])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd.rawValue, 2)
        let arguments = [executable, "--probe-plugin", plugin, "--probe-options", JSONWriter.string(options)]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        writeEnd.close()
        guard spawned == 0 else { return "cannot be probed: cannot start \(executable): \(String(cString: strerror(spawned)))" }

        // Read what the child says until it closes stderr or time runs out.
        let deadline = MonotonicClock.now() + seconds
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var timedOut = false
        while true {
            let left = deadline - MonotonicClock.now()
            if left <= 0 { timedOut = true; break }
            var pfd = pollfd(fd: readEnd.rawValue, events: Int16(POLLIN), revents: 0)
            guard let ready = try? syscall("poll", { poll(&pfd, 1, Int32(min(left * 1000 + 1, 60_000))) }) else { break }
            if ready == 0 { continue }
            guard let n = try? syscall("read", { buffer.withUnsafeMutableBytes { read(readEnd.rawValue, $0.baseAddress, $0.count) } }),
                  n > 0 else { break }
            if output.count < 16_384 { output += buffer[0..<n] }
        }
        readEnd.close()
        if timedOut { kill(pid, SIGKILL) }
        var status: Int32 = 0
        // The child closed stderr: it exits at once; a child that closed it early and hangs
        // is killed after the rest of the time.
        while true {
            let r: pid_t
            do { r = try syscall("waitpid", { waitpid(pid, &status, WNOHANG) }) } catch { return "cannot be probed: \(error)" }
            if r == pid { break }
            if MonotonicClock.now() > deadline && !timedOut {
                timedOut = true
                kill(pid, SIGKILL)
            }
            usleep(2000)
        }
        let said = String(decoding: output, as: UTF8.self).split(separator: "\n")
            .last { $0.hasPrefix("probe: ") }.map { String($0.dropFirst(7)) }
        if timedOut {
            return "hung in its probe (no answer within \(seconds) s at load, init or its first call on sample text): refused"
        }
        let exited = status & 0x7f == 0
        if !exited {
            let signal = status & 0x7f
            return "crashed in its probe (signal \(signal), \(String(cString: strsignal(signal)))) at load, init or its first call on sample text: refused"
        }
        let code = (status >> 8) & 0xff
        if code != 0 { return said ?? "its probe failed (exit status \(code))" }
        return nil
    }

    /// The child's side: loads `plugin`, makes one call of its kind on sample text and
    /// returns the exit status (0 passed; 1 refused, the reason written to stderr as
    /// `probe: REASON`). Runs in the probe process only.
    public static func child(plugin path: String, optionsJSON: String) -> Int32 {
        func refuse(_ reason: String) -> Int32 {
            let line = "probe: \(reason)\n"
            var bytes = Array(line.utf8)
            _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
            return 1
        }
        let options: JSONValue
        do { options = try JSONParser.parse(Array(optionsJSON.utf8)) } catch { return refuse("bad probe options: \(error)") }
        let rasterizer = try? GlyphRasterizer()
        let plugin: LoadedPlugin
        // Images it registers are taken without opening them: the daemon reads them itself.
        switch LoadedPlugin.open(path: path, options: options, rasterizer: rasterizer,
                                 images: AttachmentImages(base: ".", opensFiles: false)) {
        case .success(let p): plugin = p
        case .failure(let f): return refuse(f.reason)
        }
        let text = Array(sampleText.utf8)
        switch plugin.kind {
        case .linkDetector:
            for kind in plugin.kinds {
                if case .failure(let message) = plugin.detect(text: text, kind: kind, options: [:], language: "") {
                    return refuse("its detect(\"\(kind)\") failed on sample text: \(message)")
                }
            }
        case .attachmentProvider:
            if case .failure(let message) = plugin.attachments(text: text, fontSize: 16, options: [:]) {
                return refuse("its attachments call failed on sample text: \(message)")
            }
        case .lineRenderer:
            if let message = PluginLines.probeRenderer(plugin, text: text) {
                return refuse(message)
            }
        }
        return 0
    }
}
