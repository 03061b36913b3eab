import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// What systemd gives a service and wants to hear from it, without libsystemd: socket
/// activation (`LISTEN_PID`, `LISTEN_FDS`, `LISTEN_FDNAMES`), readiness and status over
/// `NOTIFY_SOCKET`, and the watchdog (`WATCHDOG_USEC`).
public enum Systemd {
    /// The sockets passed by socket activation (file descriptors 3 on), when `LISTEN_PID`
    /// is this process; the variables are unset after use, so children do not see them.
    /// Nil when not activated.
    public static func activatedListeners() -> [Int32]? {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pid = Daemon.environment("LISTEN_PID").flatMap(Int32.init), pid == getpid(),
              let count = Daemon.environment("LISTEN_FDS").flatMap(Int.init), count >= 1, count <= 64 else { return nil }
        let descriptors = Array(Int32(3)..<Int32(3 + count))
        for fd in descriptors { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return descriptors
    }

    /// Sends `state` ("READY=1", "STATUS=…", "STOPPING=1", "WATCHDOG=1") to systemd's
    /// notification socket; does nothing when `NOTIFY_SOCKET` is unset. Errors are ignored, as
    /// sd_notify's are by most services: the service works on without them.
    public static func notify(_ state: String) {
        guard let path = Daemon.environment("NOTIFY_SOCKET"), !path.isEmpty else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }   // abstract namespace
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        var message = Array(state.utf8)
        _ = message.withUnsafeMutableBytes { buffer in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
    }

    /// How often to send WATCHDOG=1 (half of `WATCHDOG_USEC`), in microseconds, when systemd
    /// asked for it (and `WATCHDOG_PID`, if set, is this process).
    public static func watchdogInterval() -> UInt32? {
        if let pid = Daemon.environment("WATCHDOG_PID").flatMap(Int32.init), pid != getpid() { return nil }
        guard let usec = Daemon.environment("WATCHDOG_USEC").flatMap(UInt64.init), usec > 0 else { return nil }
        return UInt32(min(usec / 2, UInt64(UInt32.max)))
    }

}

extension Systemd {
    /// Sends WATCHDOG=1 at half the interval systemd asked for, from a thread of its own
    /// (nothing when it asked for none).
    static func startWatchdog() {
        guard let interval = watchdogInterval() else { return }
        do {
            try spawnDetachedThread {
                while true {
                    notify("WATCHDOG=1")
                    usleep(interval)
                }
            }
        } catch {
            Log.warning("cannot start the watchdog thread: \(error)")
        }
    }
}
