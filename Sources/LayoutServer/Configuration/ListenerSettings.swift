import LayoutProtocol
import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// Where the daemon listens (`listen`) and the shared secret its TCP peers present
/// (`auth.tokenFile`). A Unix socket's peer is checked by uid; a TCP peer has none, so a TCP
/// listener is served only with a token. Listeners are opened at start; the token is read at
/// start and again on every reload.
public struct ListenerSettings: Sendable {
    /// The configured listeners; nil when the file names none (then `--socket`, or the
    /// default path).
    public var addresses: [ListenAddress]?
    /// The file holding the token, and the token read from it.
    public var tokenFile: String?
    public var token: AuthToken?

    public init() {}

    public var hasTCP: Bool { addresses?.contains(where: \.isTCP) ?? false }

    static let authKeys = ["tokenFile"]

    /// `listen` and `auth` of a configuration file (paths relative to its folder `base`).
    static func read(_ reader: ParamReader, base: String) throws(RPCError) -> ListenerSettings {
        var settings = ListenerSettings()
        if let v = reader.member("listen") {
            guard let list = v.arrayValue, !list.isEmpty else {
                throw .invalidParams(field: "listen", "must be a non-empty array such as [\"unix:/run/layoutd/layoutd.sock\", \"tcp:127.0.0.1:7000\"]")
            }
            var addresses: [ListenAddress] = []
            for (i, item) in list.enumerated() {
                guard let text = item.stringValue else { throw .invalidParams(field: "listen[\(i)]", "must be a string") }
                let address: ListenAddress
                do { address = try ListenAddress(parsing: text) } catch {
                    throw .invalidParams(field: "listen[\(i)]", error.description)
                }
                guard address.hasNumericHost else {
                    throw .invalidParams(field: "listen[\(i)]", "\"\(text)\": a listener's host must be a numeric address (127.0.0.1, 0.0.0.0, [::1], [::])")
                }
                addresses.append(address)
            }
            settings.addresses = addresses
        }
        if let auth = try reader.object("auth") {
            try auth.rejectUnknownKeys(authKeys)
            if let file = try auth.string("tokenFile") {
                let path = Files.resolve(file, relativeTo: base)
                settings.tokenFile = path
                settings.token = try AuthToken.read(path)
            }
        }
        if settings.hasTCP, settings.token == nil {
            throw .invalidParams(field: "listen", "names a TCP listener, which needs auth.tokenFile: a TCP peer has no uid to check, so it must present a shared secret")
        }
        return settings
    }

    /// The `--check-config` lines.
    var summary: [String] {
        ["listen: \(addresses.map { $0.map(\.description).joined(separator: ", ") } ?? "(not set: --socket, or the default path)")",
         "auth.tokenFile: \(tokenFile.map { "\($0) (\(token?.count ?? 0) bytes)" } ?? "(none)")"]
    }
}

/// The shared secret a TCP peer presents in `initialize` (`params.auth.token`).
public struct AuthToken: Sendable {
    private let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var count: Int { bytes.count }

    /// Shortest token accepted: 16 bytes, 128 bits when they are random.
    static let minimumLength = 16

    /// The token in `path`: a regular file (not a link: O_NOFOLLOW) that other users can
    /// neither read nor write, its content less surrounding white space, at least 16 bytes.
    static func read(_ path: String) throws(RPCError) -> AuthToken {
        let content: [UInt8]
        do {
            content = try Files.readRegular(path, limit: 4096) { (status) throws(Errno) in
                guard status.st_mode & 0o007 == 0 else {
                    throw Errno(EACCES, "\(path): other users may read or write it (chmod 600 or 640), so")
                }
            }
        } catch {
            throw .invalidParams(field: "auth.tokenFile", "\(error)")
        }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let token = Array(content.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
        guard token.count >= minimumLength else {
            throw .invalidParams(field: "auth.tokenFile", "\(path) holds \(token.count) bytes; a token needs at least \(minimumLength) (make one with `head -c 32 /dev/urandom | base64 > \(path)`)")
        }
        return AuthToken(token)
    }

    /// Whether `given` is the token, in time that depends on neither where they first differ
    /// nor how much of it matches (every byte of the longer is looked at), so that timing
    /// tells a peer guessing it nothing.
    public func matches(_ given: [UInt8]) -> Bool {
        var difference = UInt64(bytes.count ^ given.count)
        for i in 0..<max(bytes.count, given.count) {
            let a = i < bytes.count ? bytes[i] : 0
            let b = i < given.count ? given[i] : 0
            difference |= UInt64(a ^ b)
        }
        return difference == 0
    }
}
