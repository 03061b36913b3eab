@testable import LayoutEngine
import TestSupport

func utf16(_ s: String) -> [UInt16] { Array(s.utf16) }

/// Where the run of hanging white space before each offset of `units` starts (offsets
/// 0...count), read unit by unit from `isHangingSpace`: what `LineFiller`'s `hangStart` holds.
func hangingSpaceStarts(unitByUnit units: [UInt16]) -> [Int32] {
    var starts: [Int32] = [0]
    for (i, u) in units.enumerated() { starts.append(isHangingSpace(u) ? starts[i] : Int32(i + 1)) }
    return starts
}

/// A seeded xorshift64 generator: the same pseudo-random test inputs on every run.
struct XorShift64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return state
    }
}
