/// Allocating a short request's many small arrays without the runtime's generic metadata
/// table.
///
/// `Array(repeating:count:)` and `Array(unsafeUninitializedCapacity:initializingWith:)`
/// allocate through a function of the standard library that is not specialized for the
/// element type, so every call looks the storage class's metadata up in the runtime's table
/// for generic types: more work than a short paragraph does with the array. Growing an empty
/// array (`reserveCapacity`) runs specialized code that reads the metadata from a cache at
/// the call site. For a large array the lookup is nothing beside the work, and filling it
/// first would be one more pass, so large ones are allocated by the standard library.
extension Array {
    /// Below this many elements an array is allocated by growing an empty one.
    @usableFromInline static var smallArrayLimit: Int { 4096 }

    /// `count` copies of `value` (as `init(repeating:count:)`).
    @inlinable
    public init(filledWith value: Element, count: Int) {
        guard count < Self.smallArrayLimit else {
            self.init(repeating: value, count: count)
            return
        }
        self.init()
        reserveCapacity(count)
        append(contentsOf: repeatElement(value, count: count))
    }
}

extension Array where Element: BitwiseCopyable {
    /// As `init(unsafeUninitializedCapacity:initializingWith:)`: `body` writes up to
    /// `capacity` elements into the buffer and sets how many it wrote. A small array's
    /// elements start as `blank` (a large one's are uninitialized, as there).
    @inlinable
    public init(capacity: Int, blank: Element,
                initializingWith body: (inout UnsafeMutableBufferPointer<Element>, inout Int) throws -> Void) rethrows {
        guard capacity < Self.smallArrayLimit else {
            try self.init(unsafeUninitializedCapacity: capacity, initializingWith: body)
            return
        }
        self.init(filledWith: blank, count: capacity)
        var written = 0
        try withUnsafeMutableBufferPointer { buffer in try body(&buffer, &written) }
        precondition(written >= 0 && written <= capacity, "more elements written than the capacity")
        removeLast(capacity - written)
    }
}
