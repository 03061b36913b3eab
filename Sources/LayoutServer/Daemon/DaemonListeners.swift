import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// The sockets a daemon listens on, and the socket files it made (removed when it stops).
struct DaemonListeners: ~Copyable {
    var sockets: [ListeningSocket] = []
    var socketFiles: [String] = []

    var servesTCP: Bool { sockets.contains { $0.kind == .tcp } }

    /// How the first lines and systemd's status name them: Unix sockets by path, TCP ones as
    /// `tcp:HOST:PORT` (the port the kernel chose, for port 0).
    var names: [String] { sockets.map(\.name) }

    /// Under socket activation, every socket systemd passed (each taken as given: its kind
    /// read from its address); otherwise the configured ones. Exits 1, saying why, when one
    /// cannot be opened or a TCP listener would have no token.
    static func open(_ configuration: ServerConfiguration, socketOption: String?) -> DaemonListeners {
        var listeners = DaemonListeners()
        if let activated = Systemd.activatedListeners() {
            for fd in activated { listeners.adoptActivated(fd) }
        } else {
            for address in addresses(configuration.listeners.addresses, socketOption: socketOption) {
                listeners.listen(on: address)
            }
        }
        if listeners.servesTCP, configuration.listeners.token == nil {
            Daemon.fail("a TCP listener needs auth.tokenFile in the configuration: a TCP peer has no uid to check, so it must present a shared secret")
        }
        return listeners
    }

    /// The configured listeners, `--socket` standing for their Unix ones (or added, when
    /// they name only TCP ones); with neither, the default path.
    static func addresses(_ configured: [ListenAddress]?, socketOption: String?) -> [ListenAddress] {
        guard let configured else { return [.unix(path: socketOption ?? UnixSocket.defaultDaemonPath())] }
        guard let socketOption else { return configured }
        return [.unix(path: socketOption)] + configured.filter(\.isTCP)
    }

    private mutating func listen(on address: ListenAddress) {
        switch address {
        case .unix(let path):
            do {
                let fd = try SocketPath.listen(at: path)
                sockets.append(ListeningSocket(adopting: fd, kind: .unix, name: path))
                socketFiles.append(path)
            } catch {
                Daemon.fail("\(error)")
            }
        case .tcp(let host, let port):
            do {
                let fd = try TCPSocket.listen(host: host, port: port)
                let shown = TCPSocket.boundAddress(fd.rawValue)?.shown ?? "\(host):\(port)"
                sockets.append(ListeningSocket(adopting: fd, kind: .tcp, name: "tcp:\(shown)"))
            } catch {
                Daemon.fail("cannot listen on \(address): \(error)")
            }
        }
    }

    private mutating func adoptActivated(_ fd: Int32) {
        guard let kind = ListenerKind.of(fd) else {
            Daemon.fail("socket activation passed file descriptor \(fd), which is neither a Unix nor a TCP socket")
        }
        let name = kind == .tcp ? "tcp:\(TCPSocket.boundAddress(fd)?.shown ?? "?")" : "(socket activation, fd \(fd))"
        sockets.append(ListeningSocket(adopting: FileDescriptor(adopting: fd), kind: kind, name: name))
    }
}
