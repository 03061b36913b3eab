#if canImport(Glibc)
import Glibc
#endif

/// Log lines on standard error, one per event: `layoutd[pid]: level: message`. When standard
/// error is the journal (`JOURNAL_STREAM` names its device and inode, as systemd sets it), each
/// line starts with the syslog priority the journal reads (`<3>` error, `<4>` warning, `<6>`
/// info, `<7>` debug) and leaves out the pid, which the journal records itself.
public enum Log {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        var name: String { ["debug", "info", "warning", "error"][rawValue] }
        /// syslog priority (sd-daemon(3)).
        var priority: Int { [7, 6, 4, 3][rawValue] }
    }

    /// Whether standard error is the journal's stream: `JOURNAL_STREAM` is "device:inode" of
    /// the stream systemd connected, and fd 2 is still that stream (not redirected since).
    private static let toJournal: Bool = {
        guard let value = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        var st = stat()
        guard fstat(2, &st) == 0 else { return false }
        return value == "\(st.st_dev):\(st.st_ino)"
    }()

    nonisolated(unsafe) private static var minimum: Level = .info

    /// Sets the lowest level written; call once at start, before threads.
    public static func setMinimumLevel(_ level: Level) { minimum = level }

    public static func write(_ level: Level, _ message: @autoclosure () -> String) {
        guard level >= minimum else { return }
        let line = toJournal ? "<\(level.priority)>\(level.name): \(message())\n"
                             : "layoutd[\(getpid())]: \(level.name): \(message())\n"
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }

    public static func debug(_ m: @autoclosure () -> String) { write(.debug, m()) }
    public static func info(_ m: @autoclosure () -> String) { write(.info, m()) }
    public static func warning(_ m: @autoclosure () -> String) { write(.warning, m()) }
    public static func error(_ m: @autoclosure () -> String) { write(.error, m()) }
}
