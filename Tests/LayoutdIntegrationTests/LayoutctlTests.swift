import Foundation
import LayoutProtocol
import Testing

/// layoutctl, run as a person would, against a real layoutd.
@Suite(.serialized) struct LayoutctlTests {
    func layoutctl(_ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Daemon.binary()).deletingLastPathComponent().appendingPathComponent("layoutctl")
        process.arguments = arguments
        let out = Pipe(), err = Pipe(), inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
        try inPipe.fileHandleForWriting.close()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let error = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output, error)
    }

    @Test func printsEachLineWithItsText() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let r = try layoutctl(["--socket", daemon.socketPath, "layout", "--width", "120", "--font", "Noto Sans 16",
                               "The quick brown fox jumps over the lazy dog"])
        #expect(r.status == 0, "\(r.error)")
        let lines = r.output.split(separator: "\n")
        #expect(lines.first?.hasPrefix("size ") == true)
        #expect(lines.count >= 4)
        #expect(lines.dropFirst().allSatisfy { $0.contains("baseline") && $0.contains("│") })
        // The line texts, joined, give the text back.
        let texts = lines.dropFirst().compactMap { line -> String? in
            guard let a = line.firstIndex(of: "│"), let b = line.lastIndex(of: "│"), a < b else { return nil }
            return String(line[line.index(after: a)..<b])
        }
        #expect(texts.joined() == "The quick brown fox jumps over the lazy dog")
    }

    @Test func readsStandardInputAndPrintsJSON() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let r = try layoutctl(["--socket", daemon.socketPath, "layout", "--json", "--width", "300", "-"], input: "مرحبا بالعالم\nשלום")
        #expect(r.status == 0, "\(r.error)")
        #expect(r.output.hasPrefix("{\"size\":"))
        #expect(r.output.contains("\"lines\":["))
    }

    @Test func pingAndErrors() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let ping = try layoutctl(["--socket", daemon.socketPath, "ping"])
        #expect(ping.status == 0 && ping.output.contains("layoutd"))
        let bad = try layoutctl(["--socket", daemon.socketPath, "layout", "--width", "-3", "x"])
        #expect(bad.status != 0 && bad.error.contains("`width`"))
        let nowhere = try layoutctl(["--socket", "\(daemon.folder)/nothing.sock", "ping"])
        #expect(nowhere.status != 0 && nowhere.error.contains("cannot connect"))
    }

    @Test func statsPrintsCountersReadably() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        _ = try client.result("layout", ["text": "one"])
        _ = try client.result("layout", ["text": "two"])
        _ = try client.call("layout", ["text": 3])
        let r = try layoutctl(["--socket", daemon.socketPath, "stats"])
        #expect(r.status == 0, "\(r.error)")
        let lines = r.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("layoutd ") == true)
        #expect(lines.contains { $0.hasPrefix("requests ") && $0.contains("1 errors") && $0.contains("p99") }, "\(r.output)")
        #expect(lines.contains("  layout       3 (1 errors)"), "\(r.output)")
        #expect(lines.contains { $0.hasPrefix("connections  ") && $0.contains(" open (limit 256); per event loop ") }, "\(r.output)")
        #expect(lines.contains { $0.hasPrefix("memory") && $0.contains("MiB resident") })
        #expect(lines.contains { $0.hasPrefix("caches") && $0.contains("hit rate") }, "\(r.output)")
        #expect(lines.contains { $0.hasPrefix("plugins") && $0.contains("links 1.0") }, "\(r.output)")
        let json = try layoutctl(["--socket", daemon.socketPath, "stats", "--json"])
        #expect(try JSONParser.parse(Array(json.output.utf8))["requests"]?["errorsByMethod"]?["layout"] == 1)
    }

    @Test func linksNeitherHarfBuzzNorICU() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        process.arguments = [URL(fileURLWithPath: try Daemon.binary()).deletingLastPathComponent().appendingPathComponent("layoutctl").path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let libraries = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(libraries.contains("libc.so"))
        #expect(!libraries.contains("harfbuzz") && !libraries.contains("libicu") && !libraries.contains("fontconfig"))
    }
}
