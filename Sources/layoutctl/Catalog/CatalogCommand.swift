import LayoutClient
import LayoutProtocol
import LayoutTransport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `catalog [--port N] [--socket PATH]`: serves the catalog's pages on 127.0.0.1:N (0, the
/// default: a free port) and bridges their requests to the daemon; prints the URL once it
/// listens, then serves until it is stopped (Ctrl-C).
func catalog(_ arguments: [String], socket: String?) async {
    var arguments = arguments
    var socket = socket
    var port = 0
    while !arguments.isEmpty {
        let option = arguments.removeFirst()
        guard !arguments.isEmpty, option == "--port" || option == "--socket" else {
            usageError(option.hasPrefix("-") ? "\(option): unknown option, or its value is missing" : "unexpected argument \(option)", command: "catalog")
        }
        let value = arguments.removeFirst()
        if option == "--socket" { socket = value; continue }
        guard let number = Int(value), (0...65535).contains(number) else { usageError("--port needs a port number (0–65535)", command: "catalog") }
        port = number
    }
    let assets = catalogAssets()
    // At start, the daemon must answer: the catalog without one could show nothing.
    let daemon = Daemon(socket: socket)
    let server = await daemon.run { client throws(LayoutClientError) in try await client.connect() }
    let listener: LoopbackListener
    do { listener = try LoopbackListener(port: port) } catch {
        fail("cannot listen on 127.0.0.1:\(port): \(error.reason)")
    }
    let catalogServer = CatalogServer(assets: assets, bridge: RPCBridge(client: daemon.client), port: listener.port)
    let path = await daemon.client.connectedPath ?? "?"
    printNow("layoutctl catalog: http://127.0.0.1:\(listener.port)/ (\(server.serverName) \(server.serverVersion) at \(path); pages from \(assets.path)); Ctrl-C stops it")
    acceptConnections(listener, catalogServer)
}

/// The asset folder, or the end of the program saying where it looked.
private func catalogAssets() -> AssetFolder {
    let environment = getenv("LAYOUTD_CATALOG_DIR").map { String(cString: $0) }
    switch AssetFolder.locate(environment: environment, executable: AssetFolder.executablePath()) {
    case .success(let folder): return folder
    case .failure(let failure):
        fail("the catalog's pages were not found; looked for index.html in:\n\(failure.tried.map { "  \($0)" }.joined(separator: "\n"))\n(set LAYOUTD_CATALOG_DIR to a folder that holds the catalog's index.html, such as catalog/ of the source tree)")
    }
}

/// Writes a line to standard output at once (print's output waits in a buffer when standard
/// output is a pipe, and whoever started the catalog waits for its URL).
private func printNow(_ line: String) {
    var bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress, $0.count) }
}

/// Connections being served now, held to `maxConnections`.
private enum CatalogConnections {
    static let open = Atomic<Int>(0)
    /// A browser opens six or so at once; more means something else is knocking.
    static let maxConnections = 32
    /// How long a connection may stay silent while its request is read or its answer sent.
    static let timeoutSeconds = 10
}

/// Accepts for ever, serving each connection on a thread of its own: the bridge's calls
/// wait for the daemon, and one slow page must not hold up another.
private func acceptConnections(_ listener: borrowing LoopbackListener, _ server: CatalogServer) {
    while true {
        let raw: Int32
        do { raw = try listener.accept(timeoutSeconds: CatalogConnections.timeoutSeconds).release() } catch {
            // Out of descriptors, or a connection reset before it was accepted: wait, go on.
            if error.code == EMFILE || error.code == ENFILE || error.code == ENOMEM { usleep(100_000) }
            continue
        }
        if CatalogConnections.open.add(1, ordering: .relaxed).newValue > CatalogConnections.maxConnections {
            CatalogConnections.open.subtract(1, ordering: .relaxed)
            let connection = FileDescriptor(adopting: raw)
            let busy = HTTPResponse.failure(HTTPFailure(503, "too many connections to the catalog at once")).serialized(headOnly: false)
            _ = try? busy.withUnsafeBytes { bytes in try UnixSocket.writeAll(connection, bytes) }
            continue
        }
        do {
            try spawnDetachedThread {
                server.serve(FileDescriptor(adopting: raw))
                CatalogConnections.open.subtract(1, ordering: .relaxed)
            }
        } catch {
            _ = close(raw)
            CatalogConnections.open.subtract(1, ordering: .relaxed)
        }
    }
}
