// Check.swift — what both fuzz targets share: invariant checks that stop the run (a
// finding), except for failures LAYOUTD_FUZZ_IGNORE names. scripts/fuzz compiles this file
// into every target.
#if canImport(Glibc)
import Glibc
#endif

/// LAYOUTD_FUZZ_IGNORE: substrings (separated by "|") of invariant messages to tolerate, for
/// long runs past a known bug that is not fixed yet.
let ignoredFailures: [String] = {
    guard let value = getenv("LAYOUTD_FUZZ_IGNORE") else { return [] }
    return String(cString: value).split(separator: "|").map(String.init)
}()

@inline(never)
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
           file: StaticString = #fileID, line: UInt = #line) {
    if condition() { return }
    let text = message()
    if ignoredFailures.contains(where: { text.contains($0) }) { return }
    fatalError("fuzz invariant: \(text)", file: file, line: line)
}
