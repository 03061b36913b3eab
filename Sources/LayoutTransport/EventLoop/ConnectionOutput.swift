/// The state of a connection shared between its loop and the threads that answer its
/// requests, kept behind the connection's lock: the answers not yet written, the requests
/// still running elsewhere, and whether the connection is closing.
struct ConnectionOutput {
    var bytes: [UInt8] = []
    /// How answers are framed: lines until the client's first bytes say otherwise.
    var framing = MessageFraming.lines
    /// Bytes of `bytes` already written.
    var sent = 0
    /// Requests of this connection handed to other threads and not finished.
    var pending = 0
    /// An ordered request (`update`) runs: the connection's later messages wait for it.
    var ordered = false
    var closed = false
    /// The loop has stopped reading for good (`ClientConnection.closeReading()`): a finished
    /// request then always wakes the loop, which closes the connection once everything is
    /// answered.
    var readClosed = false
    /// Since when buffered output has made no progress (nil: nothing buffered).
    var stalledSince: Double?
    /// Set when the connection must be dropped (output over its limit, a failed write).
    var dropReason: String?

    var buffered: Int { bytes.count - sent }

    /// Nothing in progress: no request running, no answer waiting, not closing.
    var isIdle: Bool { pending == 0 && !ordered && !closed && !readClosed && dropReason == nil && sent == bytes.count }

    /// Forgets what was written, keeping the buffer's room unless it grew past 1 MiB (so
    /// one huge answer does not pin its memory).
    mutating func discardSent() {
        bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 20)
        sent = 0
    }

    /// Writes buffered bytes to `descriptor` until the socket would block; a write error
    /// marks the connection for dropping.
    mutating func flush(to descriptor: borrowing FileDescriptor, unsent: UnsentBytes) {
        while sent < bytes.count {
            let attempt = bytes.withUnsafeBytes { raw in
                Result { () throws(Errno) -> Int? in try UnixSocket.sendNow(descriptor, UnsafeRawBufferPointer(rebasing: raw[sent...])) }
            }
            let written: Int?
            switch attempt {
            case .success(let count): written = count
            case .failure(let error):
                dropReason = "write failed: \(error.reason)"
                return
            }
            guard let written else {
                if stalledSince == nil { stalledSince = MonotonicClock.now() }
                return
            }
            // (A stream socket's send takes at least a byte or fails; 0 would loop forever.)
            guard written > 0 else { dropReason = "write failed: the socket took no bytes"; return }
            sent += written
            unsent.subtract(written)
            stalledSince = nil
        }
        discardSent()
        stalledSince = nil
    }
}
