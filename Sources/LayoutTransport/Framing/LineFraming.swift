import Glibc

/// Splits a byte stream into messages, one per `\n`-terminated line, with a size cap.
///
/// Feed it what the socket gave (`append`), then take lines (`nextLine`) until none is left.
/// A line longer than `maxLineLength` is reported once as `.oversized` and then skipped up to
/// its newline, so memory stays bounded by the cap however much a client sends.
public struct LineFramer {
    public enum Frame: Equatable {
        /// One message, without its `\n` (and without a `\r` before it).
        case line([UInt8])
        /// A message exceeded the cap; its bytes were dropped.
        case oversized
    }

    public let maxLineLength: Int
    /// Bytes received; those before `head` are consumed (compacted away now and then, so
    /// many small pipelined lines cost linear time, not a shift of the buffer per line).
    private var buffer: [UInt8] = []
    private var head = 0
    /// Bytes from `head` up to here hold no newline.
    private var scanned = 0
    private var discarding = false

    public init(maxLineLength: Int) { self.maxLineLength = maxLineLength }

    /// Bytes held for a line not yet complete.
    public var pendingCount: Int { buffer.count - head }

    /// Whether a complete line (or the end of an oversized one) is waiting: `nextFrame` would
    /// consume something.
    public var hasLine: Bool { newlineIndex(from: max(scanned, head)) != nil }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) { compact(); buffer.append(contentsOf: bytes) }
    public mutating func append(_ bytes: [UInt8]) { compact(); buffer.append(contentsOf: bytes) }

    private mutating func compact() {
        guard head > 0, head >= buffer.count / 2 || head >= 1 << 16 else { return }
        buffer.removeSubrange(0..<head)
        scanned -= head
        head = 0
    }

    private mutating func consume(through end: Int) {
        head = end
        scanned = end
        if head == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            head = 0
            scanned = 0
        }
    }

    /// The index of the first newline in `buffer` at or after `start` (memchr: a message's
    /// text is scanned many bytes at a time).
    private func newlineIndex(from start: Int) -> Int? {
        buffer.withUnsafeBufferPointer { bytes in
            guard start < bytes.count, let base = bytes.baseAddress,
                  let found = memchr(base + start, 0x0A, bytes.count - start) else { return nil }
            return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
        }
    }

    /// The next complete frame, or nil when more bytes are needed.
    public mutating func nextFrame() -> Frame? {
        while true {
            if let newline = newlineIndex(from: max(scanned, head)) {
                if discarding {
                    consume(through: newline + 1)
                    discarding = false
                    continue
                }
                if newline - head > maxLineLength {
                    consume(through: newline + 1)
                    return .oversized
                }
                var line = Array(buffer[head..<newline])
                consume(through: newline + 1)
                if line.last == 0x0D { line.removeLast() }
                return .line(line)
            }
            if discarding {
                buffer.removeAll(keepingCapacity: false)
                head = 0
                scanned = 0
                return nil
            }
            if buffer.count - head > maxLineLength {
                buffer.removeAll(keepingCapacity: false)
                head = 0
                scanned = 0
                discarding = true
                return .oversized
            }
            scanned = buffer.count
            return nil
        }
    }
}
