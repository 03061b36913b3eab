/// A seeded xorshift64 generator: the same pseudo-random test inputs on every run.
struct XorShift64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return state
    }
}
