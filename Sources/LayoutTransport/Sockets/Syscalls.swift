#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An errno value read right after a failing system call.
public struct Errno: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: Int32
    /// What was being done, e.g. "bind /run/user/1000/layoutd/layoutd.sock".
    public var operation: String

    public init(_ code: Int32, _ operation: String) {
        self.code = code
        self.operation = operation
    }

    /// Whether the call failed only because a non-blocking descriptor was not ready (or a
    /// blocking one's SO_RCVTIMEO / SO_SNDTIMEO ran out).
    public var wouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }

    /// What the error means, as strerror(3) says it.
    public var reason: String { String(cString: strerror(code)) }

    public var description: String { "\(operation): \(reason)" }
}

/// Runs a system call that returns -1 and sets errno on failure: retries it when a signal
/// interrupted it (EINTR), returns nil when it would block (EAGAIN / EWOULDBLOCK), and throws
/// any other errno, read at once, as `Errno`. Every call of the transport goes through it
/// (directly or through `syscall`), so EINTR and EAGAIN are handled in this one loop.
@inline(__always)
public func nonBlockingSyscall<T: FixedWidthInteger>(_ operation: @autoclosure () -> String, _ call: () -> T) throws(Errno) -> T? {
    while true {
        let result = call()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        if code == EAGAIN || code == EWOULDBLOCK { return nil }
        throw Errno(code, operation())
    }
}

/// `nonBlockingSyscall` for a call that is not expected to block: EAGAIN is thrown like any
/// other error (a blocking socket's timeout shows up as an `Errno` whose `wouldBlock` is set).
@inline(__always)
@discardableResult
public func syscall<T: FixedWidthInteger>(_ operation: @autoclosure () -> String, _ call: () -> T) throws(Errno) -> T {
    guard let result = try nonBlockingSyscall(operation(), call) else { throw Errno(EAGAIN, operation()) }
    return result
}
