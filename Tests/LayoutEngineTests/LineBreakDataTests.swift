import TestSupport
import Foundation
import Testing
@testable import LayoutEngine

/// The line-break cases of Data/linebreaks.tests (its header gives the format), each laid
/// out by the engine in process on the pinned fonts; a failure names the file's line.
@Suite struct LineBreakDataTests {
    struct Case: CustomStringConvertible {
        var line: Int
        var text: [UInt16]
        var width: Double?
        var size: Double
        var starts: [Int]
        var wrap: WrapMode
        var language: String
        var description: String { "linebreaks.tests:\(line)" }
    }

    static let path = "\(repositoryRoot)/Tests/LayoutEngineTests/Data/linebreaks.tests"

    static func cases() throws -> [Case] {
        let file = try String(contentsOfFile: path, encoding: .utf8)
        var cases: [Case] = []
        for (i, raw) in file.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if raw.isEmpty || raw.hasPrefix("#") { continue }
            let fields = raw.components(separatedBy: " ; ")
            guard fields.count >= 4, let size = Double(fields[2]) else {
                throw CaseError(message: "linebreaks.tests:\(i + 1): not `text ; width ; font-size ; starts`")
            }
            let starts = try fields[3].split(separator: ",").map { field in
                guard let n = Int(field.trimmingCharacters(in: .whitespaces)) else {
                    throw CaseError(message: "linebreaks.tests:\(i + 1): line start `\(field)` is not a number")
                }
                return n
            }
            let wrap = fields.count > 4 ? WrapMode(rawValue: fields[4]) : .word
            guard let wrap else { throw CaseError(message: "linebreaks.tests:\(i + 1): unknown wrap mode") }
            cases.append(Case(line: i + 1, text: try unescaped(fields[0], line: i + 1),
                              width: fields[1] == "none" ? nil : Double(fields[1]), size: size, starts: starts,
                              wrap: wrap, language: fields.count > 5 ? fields[5] : ""))
        }
        return cases
    }

    struct CaseError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// `text` with `\u{XXXX}` and `\\` replaced, in UTF-16.
    static func unescaped(_ text: String, line: Int) throws -> [UInt16] {
        var out = ""
        var rest = Substring(text)
        while let slash = rest.firstIndex(of: "\\") {
            out += rest[..<slash]
            let after = rest[rest.index(after: slash)...]
            if after.hasPrefix("\\") {
                out += "\\"
                rest = after.dropFirst()
            } else if after.hasPrefix("u{"), let close = after.firstIndex(of: "}"),
                      let value = UInt32(after[after.index(after.startIndex, offsetBy: 2)..<close], radix: 16),
                      let scalar = Unicode.Scalar(value) {
                out.unicodeScalars.append(scalar)
                rest = after[after.index(after: close)...]
            } else {
                throw CaseError(message: "linebreaks.tests:\(line): a backslash not followed by u{…} or \\")
            }
        }
        out += rest
        return Array(out.utf16)
    }

    @Test func theFileHoldsEnoughCases() throws {
        #expect(try Self.cases().count >= 25)
    }

    @Test(arguments: try LineBreakDataTests.cases())
    func linesStartWhereTheCaseSays(_ c: Case) throws {
        var request = LayoutRequest(text: c.text, width: c.width, font: FontDescriptor(family: "Noto Sans", size: c.size),
                                    language: c.language, wrap: c.wrap)
        request.detail = .lines
        let layout = try sharedEngine.layout(request)
        let starts = layout.lines.map(\.start)
        #expect(starts == c.starts, "\(c): lines start at \(starts)")
    }

    @Test func escapesAreRead() throws {
        #expect(try Self.unescaped("a\\u{2028}b\\\\c", line: 0) == [0x61, 0x2028, 0x62, 0x5C, 0x63])
        #expect(throws: CaseError.self) { try Self.unescaped("a\\x", line: 0) }
    }
}
