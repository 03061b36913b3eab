#if canImport(Glibc)
import Glibc
#endif

/// Log lines on standard error: `layoutd[pid]: level: message`. Under systemd the journal
/// stamps time; elsewhere the line is enough to act on.
public enum Log {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        var name: String { ["debug", "info", "warning", "error"][rawValue] }
    }

    nonisolated(unsafe) private static var minimum: Level = .info

    /// Sets the lowest level written; call once at start, before threads.
    public static func setMinimumLevel(_ level: Level) { minimum = level }

    public static func write(_ level: Level, _ message: @autoclosure () -> String) {
        guard level >= minimum else { return }
        let line = "layoutd[\(getpid())]: \(level.name): \(message())\n"
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }

    public static func debug(_ m: @autoclosure () -> String) { write(.debug, m()) }
    public static func info(_ m: @autoclosure () -> String) { write(.info, m()) }
    public static func warning(_ m: @autoclosure () -> String) { write(.warning, m()) }
    public static func error(_ m: @autoclosure () -> String) { write(.error, m()) }
}
