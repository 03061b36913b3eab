import Foundation
import LayoutProtocol
import LayoutTransport
import Testing

/// Limits that must hold for every method: work that is the product of two sizes is bounded,
/// answers stay under `maxOutputBytes` (an error instead, the connection kept), long requests
/// leave room for short ones, and ids come back exactly as sent.
@Suite(.serialized) struct LimitTests {
    @Test func tabStopsAreBoundedAndManyTabsLayOut() throws {
        let daemon = try Daemon(limits: #"{"requestSeconds": 10}"#)
        defer { daemon.stop() }
        let client = try daemon.connect()
        let tooMany: JSONValue = .array((0..<1001).map { ["location": .number(Double($0 + 1))] })
        let refused = try client.call("layout", ["text": "a\tb", "paragraph": ["tabStops": tooMany]])
        #expect(refused["error"]?["code"] == -32602)
        #expect(refused["error"]?["data"]?["field"] == "paragraph.tabStops")
        #expect(refused["error"]?["message"]?.stringValue?.contains("at most 1000") == true)
        // 30 000 tabs against 1000 right-aligned stops, unwrapped and wrapped: tab stops are
        // found by bisection and a line's tabs placed once per line, not once per break.
        let stops: JSONValue = .array((0..<1000).map { ["location": .number(Double($0 * 3 + 1)), "alignment": "right"] })
        let text = String(repeating: "a\t", count: 30_000)
        for width: JSONValue in [.null, 300] {
            let result = try client.result("layout", ["text": .string(text), "width": width, "paragraph": ["tabStops": stops]])
            #expect((result["lines"]?.arrayValue?.count ?? 0) >= 1)
        }
    }

    @Test func listingsAreBoundedBeforeTheAnswerIsBuilt() throws {
        let daemon = try Daemon(limits: #"{"maxOutputBytes": 1048576, "requestSeconds": 10}"#)
        defer { daemon.stop() }
        let client = try daemon.connect()
        let long = try client.result("layout", ["text": .string(String(repeating: "word ", count: 20_000)), "width": 200, "retain": true])
        let handle = try #require(long["handle"])
        func selection(_ count: Int) -> JSONValue {
            ["layouts": .array(Array(repeating: ["handle": handle], count: count)),
             "start": ["layout": 0, "index": 0], "end": ["layout": .number(Double(count - 1)), "index": 100_000]]
        }
        let before = daemon.residentMiB
        for (method, count) in [("rects", 1000), ("selectedText", 300)] {
            let reply = try client.call(method, selection(count))
            #expect(reply["error"]?["code"] == -32000, "\(method): \(JSONWriter.string(reply).prefix(200))")
            #expect(reply["error"]?["message"]?.stringValue?.contains("over maxOutputBytes") == true)
            #expect(try client.result("ping")["pong"] == true, "the connection stays open after \(method)")
        }
        #expect(daemon.residentMiB < before + 64, "refused before it was built")
        let tooMany = try client.call("rects", selection(10_001))
        #expect(tooMany["error"]?["data"]?["field"] == "layouts")
        // Within the limits, a selection through several layouts is still answered.
        let small = try client.result("selectedText", ["layouts": [["handle": handle], ["handle": handle]],
                                                       "start": ["layout": 0, "index": 99_990], "end": ["layout": 1, "index": 4]])
        #expect(small["text"] == "word word \nword")
    }

    @Test func anAnswerOverTheOutputLimitIsAnErrorAndTheConnectionStays() throws {
        let daemon = try Daemon(limits: #"{"maxOutputBytes": 65536}"#)
        defer { daemon.stop() }
        let client = try daemon.connect()
        // Refused before the result is built: its glyphs alone cannot fit.
        let glyphs = try client.call("layout", ["text": .string(String(repeating: "abc ", count: 2000)), "detail": "glyphs"])
        #expect(glyphs["error"]?["code"] == -32000)
        let message = glyphs["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains("over maxOutputBytes") && message.contains("ask for less detail or split the text"), "\(message)")
        #expect(try client.result("ping")["pong"] == true)
        // Refused once written: 30 000 ideographs pass the one-byte-a-unit estimate, not the limit.
        let cjk = try client.result("layout", ["text": .string(String(repeating: "字", count: 30_000)), "retain": true])
        let text = try client.call("selectedText", ["layouts": [["handle": try #require(cjk["handle"])]],
                                                    "start": ["layout": 0, "index": 0], "end": ["layout": 0, "index": 30_000]])
        #expect(text["error"]?["code"] == -32000)
        #expect(text["error"]?["message"]?.stringValue?.contains("the result would be 900") == true, "\(JSONWriter.string(text).prefix(300))")
        // In a batch, the answers that fit are kept.
        let batch = try #require(try client.raw(#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"layout","params":{"text":"\#(String(repeating: "abc ", count: 2000))","detail":"glyphs"}}]"#))
        #expect(batch.arrayValue?.first?["result"]?["pong"] == true)
        #expect(batch.arrayValue?.last?["error"]?["code"] == -32000)
        #expect(try client.result("ping")["pong"] == true)
        #expect(daemon.log.contains("over maxOutputBytes"), "the log says what happened")
    }

    /// Text that takes seconds to lay out in a debug build: words that share nothing.
    static func slowText(words: Int, seed: UInt64) -> String {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ seed
        return (0..<words).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return String(state >> 24, radix: 36)
        }.joined(separator: " ")
    }

    @Test func longRequestsLeaveRoomForShortOnes() throws {
        let daemon = try Daemon(limits: #"{"requestSeconds": 10}"#)
        defer { daemon.stop() }
        let longClients = try (0..<2).map { _ in try daemon.connect() }
        for (i, client) in longClients.enumerated() {
            let text = Self.slowText(words: 100_000, seed: UInt64(i))
            try client.connection.send(RPCRequest(id: .number(1), method: "measure", params: ["text": .string(text), "width": 100]).json)
        }
        usleep(500_000)   // both long layouts are running on the workers
        let pinger = try daemon.connect()
        #expect(try pinger.result("ping")["pong"] == true)
        for client in longClients {
            var ready = pollfd(fd: client.connection.rawDescriptor, events: Int16(POLLIN), revents: 0)
            #expect(poll(&ready, 1, 0) == 0, "the ping was answered while the long layouts still ran")
        }
        for client in longClients { _ = try client.connection.receive() }
    }

    @Test func integerIdsComeBackExactly() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        for id in ["9007199254740993", "9223372036854775807", "-9223372036854775809", "123456789012345678901234567890", "7"] {
            let reply = try #require(try client.raw(#"{"jsonrpc":"2.0","id":\#(id),"method":"ping"}"#))
            #expect(JSONWriter.string(reply["id"] ?? .null) == id, "id \(id)")
        }
        // `$/cancelRequest` takes such an id too (here for a request not running: ignored).
        let reply = try #require(try client.raw(#"[{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":9007199254740993}},{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}]"#))
        #expect(JSONWriter.string(reply.arrayValue?.first?["id"] ?? .null) == "9007199254740993")
    }
}
