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

    public var description: String { "\(operation): \(String(cString: strerror(code)))" }
}

/// Runs a system call that returns -1 and sets errno on failure, retrying on EINTR; reads
/// errno at once and throws it as `Errno`.
@inline(__always)
@discardableResult
public func syscall<T: FixedWidthInteger>(_ operation: @autoclosure () -> String, _ call: () -> T) throws(Errno) -> T {
    while true {
        let result = call()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        throw Errno(code, operation())
    }
}

/// An owned file descriptor, closed in `deinit` (or earlier with `close()`).
/// `~Copyable`: exactly one owner at a time.
public struct FileDescriptor: ~Copyable {
    public private(set) var rawValue: Int32

    public init(adopting rawValue: Int32) { self.rawValue = rawValue }

    /// Closes now; later closes do nothing.
    public mutating func close() {
        if rawValue >= 0 { _ = Glibc.close(rawValue) }
        rawValue = -1
    }

    /// Gives up ownership without closing.
    public consuming func release() -> Int32 {
        let fd = rawValue
        discard self
        return fd
    }

    deinit { if rawValue >= 0 { _ = Glibc.close(rawValue) } }
}
