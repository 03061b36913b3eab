import LayoutProtocol
import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's signals, taken by one thread with sigwait (blocked everywhere else, so no
/// handler runs on an arbitrary thread): SIGHUP reloads the configuration and fonts; SIGTERM
/// and SIGINT tell systemd, stop accepting, remove the socket files (unless systemd owns them),
/// let the requests in flight finish (up to `drainSeconds`) and exit 0.
struct DaemonSignals: Sendable {
    let signals: sigset_t
    let service: LayoutService
    let server: Server
    /// The socket files layoutd made, removed on exit (none when systemd owns them).
    let socketFiles: [String]

    /// Ignores SIGPIPE (a vanished client is an EPIPE error) and blocks SIGTERM, SIGINT and
    /// SIGHUP in this thread and the threads it starts afterwards; the set blocked. Call
    /// before any thread starts.
    static func block() -> sigset_t {
        signal(SIGPIPE, SIG_IGN)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGHUP)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        return set
    }

    /// Starts the signal thread; exits 1 when it cannot.
    func start() {
        do {
            try spawnDetachedThread { waitForSignals() }
        } catch {
            Daemon.fail("cannot start the signal thread: \(error)")
        }
    }

    private func waitForSignals() -> Never {
        var set = signals
        var received: Int32 = 0
        while true {
            sigwait(&set, &received)
            guard received == SIGHUP else { break }
            reload()
        }
        stop(received)
    }

    private func reload() {
        Log.info("SIGHUP: reloading")
        Systemd.notify("RELOADING=1")
        do {
            let fingerprint = try service.reload()
            Log.info("reloaded; font fingerprint \(fingerprint)")
        } catch {
            Log.error("\(error.message)")
        }
        Systemd.notify("READY=1\nSTATUS=reloaded; \(service.engine.fonts.fontCount) font faces")
    }

    /// Drain: accept no more, let requests in flight finish (up to drainSeconds), exit 0.
    private func stop(_ received: Int32) -> Never {
        Log.info("signal \(received): stopping")
        Systemd.notify("STOPPING=1")
        server.stopAccepting()
        for file in socketFiles { unlink(file) }
        let seconds = service.configuration.drainSeconds
        if !server.drain(seconds: seconds) {
            Log.warning("requests still running after \(seconds) s; exiting")
        }
        if let file = service.configuration.shapeCacheFile { service.saveShapeCacheFile(to: file, final: true) }
        exit(0)
    }
}
