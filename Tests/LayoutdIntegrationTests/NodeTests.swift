import Foundation
import LayoutProtocol
import Testing

/// Handles know the daemon that made them (`nodeId`): another node's handle, or one from
/// before a restart, is -32001 saying so.
@Suite(.serialized) struct NodeTests {
    static func config(_ folder: String, node: String?) throws -> String {
        let path = "\(folder)/\(node ?? "derived").json"
        let member = node.map { #""nodeId": "\#($0)", "# } ?? ""
        try #"{\#(member)"fontConfig": "\#(repositoryRoot)/config/fonts.conf"}"#.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The error answer to a hit-test of `handle` on `daemon`.
    static func hitTestError(_ handle: JSONValue, on daemon: Daemon) throws -> JSONValue? {
        try daemon.connect().call("hitTest", ["handle": handle, "x": 0, "y": 0])["error"]
    }

    @Test func handlesCarryTheNodeAndAForeignOneIsNamed() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let alphaFolder = "\(folder)/alpha", betaFolder = "\(folder)/beta"
        for f in [alphaFolder, betaFolder] { try FileManager.default.createDirectory(atPath: f, withIntermediateDirectories: true) }
        var alpha = try Daemon(configPath: try Self.config(folder, node: "alpha"), folder: alphaFolder)
        let beta = try Daemon(configPath: try Self.config(folder, node: "beta"), folder: betaFolder)
        defer { alpha.stop(); beta.stop() }
        let client = try alpha.connect()
        #expect(try client.result("initialize", [:])["server"]?["node"] == "alpha")
        #expect(try client.result("stats", [:])["server"]?["node"] == "alpha")
        let handle = try #require(try client.result("layout", ["text": "Hello there", "retain": true])["handle"])
        #expect(handle.stringValue?.hasPrefix("alpha.") == true, "\(handle)")

        let foreign = try #require(try Self.hitTestError(handle, on: beta))
        #expect(foreign["code"] == -32001 && foreign["data"]?["field"] == "handle")
        let message = foreign["message"]?.stringValue ?? ""
        #expect(message.contains(#"made by node "alpha"; this is node "beta""#), "\(message)")

        alpha.stop()
        alpha = try Daemon(configPath: "\(folder)/alpha.json", folder: alphaFolder)
        let stale = try #require(try Self.hitTestError(handle, on: alpha))
        #expect(stale["code"] == -32001)
        #expect(stale["message"]?.stringValue?.contains(#"made before this daemon (node "alpha") started again"#) == true, "\(stale)")
        let never = try #require(try Self.hitTestError("nothing", on: alpha))
        #expect(never["message"]?.stringValue?.contains("released or evicted") == true, "\(never)")
    }

    @Test func aNodeIdIsCheckedAndOtherwiseDerived() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bad = try run(try Daemon.binary(), ["--check-config", try Self.config(folder, node: "a.b")])
        #expect(bad.status == 1 && bad.output.contains("nodeId"), "\(bad.output)")
        let derived = try run(try Daemon.binary(), ["--check-config", try Self.config(folder, node: nil)]).output
        #expect(derived.contains("nodeId: (derived at start from the host name and process id)"), "\(derived)")
        let daemon = try Daemon(configPath: "\(folder)/derived.json")
        defer { daemon.stop() }
        let node = try daemon.connect().result("initialize", [:])["server"]?["node"]?.stringValue ?? ""
        #expect(node.hasSuffix("-\(daemon.process.processIdentifier)") && !node.contains("."), "\(node)")
    }
}
