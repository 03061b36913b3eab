import Testing
@testable import LayoutEngine

/// Arrays allocated by growing an empty one (small) or as the standard library allocates
/// them (large) hold what the standard library's own initializers would.
@Suite struct ArrayAllocationTests {
    static let counts = [0, 1, 7, 4095, 4096, 10_000]

    @Test(arguments: counts)
    func filledArraysEqualRepeatedOnes(count: Int) {
        #expect([Int32](filledWith: 7, count: count) == [Int32](repeating: 7, count: count))
        #expect([Int?](filledWith: nil, count: count) == [Int?](repeating: nil, count: count))
        #expect([Int32](filledWith: 7, count: count).capacity >= count)
    }

    /// The body writes half the capacity: the array holds just what it wrote.
    @Test(arguments: counts)
    func arraysHoldWhatTheirBodyWrote(capacity: Int) {
        let written = capacity / 2
        let array = [UInt16](capacity: capacity, blank: 0) { out, count in
            #expect(out.count >= capacity)
            for i in 0..<written { out[i] = UInt16(truncatingIfNeeded: i &* 40_503) }
            count = written
        }
        #expect(array == (0..<written).map { UInt16(truncatingIfNeeded: $0 &* 40_503) })
    }
}
