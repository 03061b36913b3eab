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
    private var buffer: [UInt8] = []
    private var scanned = 0
    private var discarding = false

    public init(maxLineLength: Int) { self.maxLineLength = maxLineLength }

    /// Bytes held for a line not yet complete.
    public var pendingCount: Int { buffer.count }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) { buffer.append(contentsOf: bytes) }
    public mutating func append(_ bytes: [UInt8]) { buffer.append(contentsOf: bytes) }

    /// The next complete frame, or nil when more bytes are needed.
    public mutating func nextFrame() -> Frame? {
        while true {
            if let newline = buffer[scanned...].firstIndex(of: 0x0A) {
                if discarding {
                    buffer.removeSubrange(0...newline)
                    scanned = 0
                    discarding = false
                    continue
                }
                if newline > maxLineLength {
                    buffer.removeSubrange(0...newline)
                    scanned = 0
                    return .oversized
                }
                var line = Array(buffer[0..<newline])
                buffer.removeSubrange(0...newline)
                scanned = 0
                if line.last == 0x0D { line.removeLast() }
                return .line(line)
            }
            if discarding {
                buffer.removeAll(keepingCapacity: false)
                scanned = 0
                return nil
            }
            if buffer.count > maxLineLength {
                buffer.removeAll(keepingCapacity: false)
                scanned = 0
                discarding = true
                return .oversized
            }
            scanned = buffer.count
            return nil
        }
    }
}
