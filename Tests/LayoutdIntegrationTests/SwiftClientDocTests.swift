import Foundation
import Testing

/// docs/swift.md's example is the program `clients/swift/example/main.swift` as written, and
/// run against the real daemon it prints what the page shows under it.
@Suite struct SwiftClientDocTests {
    static let page = "\(repositoryRoot)/docs/swift.md"
    static let source = "\(repositoryRoot)/clients/swift/example/main.swift"

    /// The code block after `marker` on the page.
    static func block(after marker: String, in page: String) -> String? {
        guard let at = page.range(of: marker), let open = page.range(of: "```", range: at.upperBound..<page.endIndex),
              let lineEnd = page.range(of: "\n", range: open.upperBound..<page.endIndex),
              let close = page.range(of: "\n```", range: lineEnd.upperBound..<page.endIndex) else { return nil }
        return String(page[lineEnd.upperBound..<close.lowerBound]) + "\n"
    }

    @Test func theExampleIsTheProgramAndPrintsWhatThePageShows() throws {
        let page = try String(contentsOfFile: Self.page, encoding: .utf8)
        let code = try #require(Self.block(after: "<!-- example: clients/swift/example/main.swift -->", in: page))
        #expect(code == (try String(contentsOfFile: Self.source, encoding: .utf8)), "docs/swift.md's example differs from \(Self.source)")
        let expected = try #require(Self.block(after: "<!-- output of the example -->", in: page))

        let daemon = try Daemon()
        defer { daemon.stop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Daemon.binary()).deletingLastPathComponent()
            .appendingPathComponent("layoutclient-example")
        process.environment = ["LAYOUTD_SOCKET": daemon.socketPath]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(output == expected)
    }
}
