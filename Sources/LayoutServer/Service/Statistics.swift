import LayoutProtocol
import LayoutTransport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Counters a person can read through `stats`: requests by method, errors, latency of the
/// most recent requests. Thread-safe.
final class Statistics: Sendable {
    private struct State {
        var total = 0
        var errors = 0
        var byMethod: [String: Int] = [:]
        var errorsByMethod: [String: Int] = [:]
        /// The latest `window` latencies, in seconds (a ring).
        var latencies: [Double] = []
        var next = 0
    }

    static let window = 1024
    private let state = Mutex(State())
    /// Requests an event loop answered itself (see `RequestScheduler.answersOnLoop`), of
    /// `total`.
    let onLoop = Atomic<Int>(0)
    let started = MonotonicClock.now()

    /// CPU time the calling thread has used, in seconds.
    static func threadCPUSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Records one answered request.
    func record(method: String, seconds: Double, failed: Bool) {
        state.withLock { s in
            s.total += 1
            if failed {
                s.errors += 1
                s.errorsByMethod[method, default: 0] += 1
            }
            s.byMethod[method, default: 0] += 1
            if s.latencies.count < Self.window {
                s.latencies.append(seconds)
            } else {
                s.latencies[s.next] = seconds
                s.next = (s.next + 1) % Self.window
            }
        }
    }

    /// Requests, errors, methods and latency percentiles as JSON.
    var json: JSONValue {
        state.withLock { s in
            let sorted = s.latencies.sorted()
            func percentile(_ p: Double) -> JSONValue {
                guard !sorted.isEmpty else { return .null }
                let i = min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded()))
                return .number((sorted[i] * 1e6).rounded() / 1000)
            }
            return ["total": .number(Double(s.total)), "onLoop": .number(Double(onLoop.load(ordering: .relaxed))),
                    "errors": .number(Double(s.errors)),
                    "byMethod": Self.counts(s.byMethod), "errorsByMethod": Self.counts(s.errorsByMethod),
                    "latencyMs": ["p50": percentile(0.5), "p90": percentile(0.9), "p99": percentile(0.99),
                                  "max": percentile(1), "window": .number(Double(sorted.count))]]
        }
    }

    private static func counts(_ counts: [String: Int]) -> JSONValue {
        .object(counts.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) })
    }

    /// Resident memory in bytes, from /proc/self/statm.
    static func residentBytes() -> Int? {
        guard let bytes = try? Files.read("/proc/self/statm", limit: 4096) else { return nil }
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
