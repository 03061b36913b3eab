import Foundation
import LayoutProtocol
import Testing

/// Bad input gets the JSON-RPC error the protocol names, and the connection carries on.
@Suite(.serialized) struct BadInputTests {
    static let cases: [(String, Int, String?)] = [
        ("{not json", -32700, nil),
        ("[1, 2", -32700, nil),
        ("\"just a string\"", -32600, nil),
        (#"{"jsonrpc": "2.0", "id": 1}"#, -32600, nil),
        (#"{"jsonrpc": "1.0", "id": 1, "method": "layout"}"#, -32600, nil),
        (#"{"jsonrpc": "2.0", "id": 1, "method": "frobnicate"}"#, -32601, nil),
        (#"{"jsonrpc": "2.0", "id": 1, "method": "layout"}"#, -32602, "text"),
        (#"{"jsonrpc": "2.0", "id": 1, "method": "layout", "params": {}}"#, -32602, "text"),
        (#"{"jsonrpc": "2.0", "id": 1, "method": "layout", "params": {"text": 42}}"#, -32602, "text"),
        (#"{"jsonrpc": "2.0", "id": 1, "method": "layout", "params": {"text": "x", "width": -5}}"#, -32602, "width"),
        (#"{"jsonrpc": "2.0", "id": 1, "method": "layout", "params": {"text": "x", "width": "wide"}}"#, -32602, "width"),
        (#"{"jsonrpc": "2.0", "id": 1, "method": "layout", "params": {"text": "x", "width": 1e999}}"#, -32700, nil),
        (#"{"jsonrpc": "2.0", "id": 1, "method": "layout", "params": {"text": "x", "font": {"size": 0}}}"#, -32602, "font.size"),
        (#"{"jsonrpc": "2.0", "id": 1, "method": "layout", "params": {"text": "x", "font": {"size": -1}}}"#, -32602, "font.size"),
        (#"{"jsonrpc": "2.0", "id": 1, "method": "layout", "params": {"text": "x", "font": {"family": 3}}}"#, -32602, "font.family"),
        (#"{"jsonrpc": "2.0", "id": 1, "method": "layout", "params": ["x"]}"#, -32602, nil),
        // Nesting past 64 levels (here 100 000) is a parse error, not a stack overflow.
        (#"{"jsonrpc": "2.0", "id": 1, "method": "layout", "params": {"text": "x", "data": "# + String(repeating: "[", count: 100_000)
            + String(repeating: "]", count: 100_000) + "}}", -32700, nil),
    ]

    @Test func eachGetsItsErrorAndTheConnectionCarriesOn() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        for (line, code, field) in Self.cases {
            let reply = try #require(try client.raw(line), "no reply to \(line)")
            #expect(reply["jsonrpc"] == "2.0")
            #expect(reply["error"]?["code"] == .number(Double(code)), "\(line) → \(JSONWriter.string(reply))")
            let message = reply["error"]?["message"]?.stringValue ?? ""
            #expect(!message.isEmpty)
            if let field {
                #expect(reply["error"]?["data"]?["field"] == .string(field), "\(line) → \(message)")
                #expect(message.contains("`\(field)`"), "the message names the field: \(message)")
            }
            #expect(try client.result("ping")["pong"] == true, "connection still works after \(line)")
        }
    }

    @Test func hostileTextLaysOut() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        // JSON string contents, as a client would send them.
        let texts: [String] = [
            #"a\ud800b\udfff"#,                                         // lone surrogates: U+FFFD each
            #"\u0000\u0001\u001f\u007f\u0008 control"#,                 // control characters
            #"\ufdd0\ufffe\uffff\udbff\udfff noncharacters"#,
            String(repeating: #"\u202e\u2067\u202a\u2069\u202c"#, count: 2000) + "abc",  // bidi controls
            String(repeating: #"\u0301"#, count: 5000),                  // marks with no base
        ]
        for text in texts {
            let raw = #"{"jsonrpc":"2.0","id":1,"method":"layout","params":{"text":""# + text + #"","width":100}}"#
            let reply = try #require(try client.raw(raw))
            let result = try #require(reply["result"].flatMap(LayoutResult.init(json:)), "\(JSONWriter.string(reply).prefix(300))")
            #expect(result.lines.count >= 1)
        }
        // Lone surrogates count one UTF-16 unit each, as the client sent them.
        let reply = try #require(try client.raw(#"{"jsonrpc":"2.0","id":2,"method":"layout","params":{"text":"a\ud800b"}}"#))
        #expect(reply["result"]?["lines"]?.arrayValue?.last?["end"] == 3)
        #expect(try client.result("ping")["pong"] == true)
    }

    /// Inputs at the extremes: a result, or a -32602 naming the member; the connection goes on.
    @Test func extremeInputsGetAResultOrANamedError() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        // 100,000 combining marks on one base: one cluster, so one line however narrow.
        let marks = try #require(LayoutResult(json: client.result("layout", [
            "text": .string("a" + String(repeating: "\u{301}", count: 100_000)), "width": 10])))
        #expect(marks.lines.count == 1 && marks.lines[0].end == 100_001)
        // A 1 MB word with no break opportunity wraps between clusters, lines contiguous.
        let word = try #require(LayoutResult(json: client.result("layout", [
            "text": .string(String(repeating: "x", count: 1_000_000)), "width": 300])))
        #expect(word.lines.count > 1000 && word.lines.last?.end == 1_000_000)
        #expect(zip(word.lines, word.lines.dropFirst()).allSatisfy { $0.end == $1.start })
        #expect(word.lines.allSatisfy { $0.width <= 300 })

        let named: [(JSONValue, String)] = [
            (["text": "x", "font": ["size": 1e6]], "font.size"),
            (["text": "x", "font": ["size": 1e300]], "font.size"),
            (["text": "hello world", "paragraph": ["maxLines": 1, "truncation": ["token": .string(String(repeating: "more ", count: 100_000))]]],
             "paragraph.truncation.token"),
            (["text": "hello world", "spans": [["start": 5, "end": 2, "underline": true]]], "spans[0].end"),
            (["text": "hello world", "spans": [["start": 5, "end": 200, "underline": true]]], "spans[0].end"),
        ]
        for (params, field) in named {
            let reply = try client.call("layout", params)
            #expect(reply["error"]?["code"] == -32602 && reply["error"]?["data"]?["field"] == .string(field),
                    "\(JSONWriter.string(reply).prefix(300))")
        }

        // Offsets inside a surrogate pair: an error naming the member for positions, a span
        // edge widened to the whole character.
        let handle = try #require(client.result("layout", ["text": "a😀b", "retain": true])["handle"]?.stringValue)
        let inside: [(String, JSONValue, String)] = [
            ("caret", ["handle": .string(handle), "index": 2], "index"),
            ("word", ["handle": .string(handle), "index": 2], "index"),
            ("rects", ["handle": .string(handle), "start": 2, "end": 3], "start"),
            ("update", ["handle": .string(handle), "edits": [["start": 2, "end": 2, "text": "x"]]], "edits[0].start"),
        ]
        for (method, params, field) in inside {
            let reply = try client.call(method, params)
            #expect(reply["error"]?["data"]?["field"] == .string(field), "\(method): \(JSONWriter.string(reply))")
            #expect(reply["error"]?["message"]?.stringValue?.contains("inside a character") == true)
        }
        // An update whose `result` is not one of the choices is refused whole: the edit is not
        // applied (it once was, with the error answered after it).
        let refused = try client.call("update", ["handle": .string(handle), "result": "some",
                                                 "edits": [["start": 0, "end": 0, "text": "x"]]])
        #expect(refused["error"]?["data"]?["field"] == "result", "\(JSONWriter.string(refused))")
        let kept = try client.result("selectedText", ["layouts": [["handle": .string(handle)]],
                                                      "start": ["layout": 0, "index": 0], "end": ["layout": 0, "index": 4]])
        #expect(kept["text"] == "a😀b", "the text after a refused update: \(JSONWriter.string(kept))")
        let widened = try #require(LayoutResult(json: client.result("layout", [
            "text": "a😀b", "spans": [["start": 2, "end": 3, "link": "https://x"]]])))
        #expect(widened.regions.first.map { ($0.start, $0.end) } ?? (0, 0) == (1, 3))
        #expect(try client.result("ping")["pong"] == true)
    }

    @Test func invalidUTF8IsAParseError() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        var bytes = Array(#"{"jsonrpc":"2.0","id":1,"method":"layout","params":{"text":""#.utf8)
        bytes += [0xC3, 0x28] + Array(#""}}"#.utf8)
        try client.connection.send(line: bytes)
        let reply = try #require(try client.connection.receive())
        #expect(reply["error"]?["code"] == -32700)
        #expect(try client.result("ping")["pong"] == true)
    }

    /// The examples of JSON-RPC 2.0 §7 for batches, answered as the spec shows.
    @Test func batchesFollowTheSpecification() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let empty = try #require(try client.raw("[]"))
        #expect(empty["error"]?["code"] == -32600 && empty["id"] == .null)

        let one = try #require(try client.raw("[1]"))
        #expect(one.arrayValue?.count == 1 && one.arrayValue?[0]["error"]?["code"] == -32600)

        let three = try #require(try client.raw("[1,2,3]"))
        #expect(three.arrayValue?.count == 3)

        let mixed = try #require(try client.raw("""
            [{"jsonrpc":"2.0","method":"ping","params":{},"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]},\
            {"jsonrpc":"2.0","method":"frobnicate","id":"5"},{"foo":"boo"},{"jsonrpc":"2.0","method":"layout","params":{"text":"hi"},"id":"9"}]
            """))
        let replies = try #require(mixed.arrayValue)
        #expect(replies.count == 4, "the notification gets no reply")
        #expect(replies[0]["id"] == "1" && replies[0]["result"]?["pong"] == true)
        #expect(replies[1]["id"] == "5" && replies[1]["error"]?["code"] == -32601)
        #expect(replies[2]["id"] == .null && replies[2]["error"]?["code"] == -32600)
        #expect(replies[3]["id"] == "9" && replies[3]["result"]?["lines"] != nil)

        // A batch of notifications only: nothing comes back; the next request's reply is next.
        try client.connection.send(line: Array(#"[{"jsonrpc":"2.0","method":"ping"},{"jsonrpc":"2.0","method":"layout","params":{"text":"x"}}]"#.utf8))
        #expect(try client.result("ping")["pong"] == true)
    }

    /// `initialize` inside a batch chooses the encoding for the connection, not only for the
    /// rest of that batch.
    @Test func initializeInsideABatchAppliesToTheConnection() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "héllo wörld — ünïcode"
        let replies = try #require(try client.raw("""
            [{"jsonrpc":"2.0","method":"initialize","params":{"offsetEncodings":["utf-8"]},"id":1},\
            {"jsonrpc":"2.0","method":"layout","params":{"text":"\(text)"},"id":2}]
            """)?.arrayValue)
        #expect(replies.count == 2 && replies[0]["result"]?["offsetEncoding"] == "utf-8")
        #expect(replies[1]["result"]?["lines"]?.arrayValue?.last?["end"] == .number(Double(text.utf8.count)))
        let after = try client.result("layout", ["text": .string(text)])
        #expect(after["lines"]?.arrayValue?.last?["end"] == .number(Double(text.utf8.count)),
                "a later request uses the encoding the batch chose (UTF-16 would end at \(text.utf16.count))")
    }

    @Test func oversizedMessageIsRefusedAndTheConnectionClosed() throws {
        let daemon = try Daemon(limits: #"{"maxMessageBytes": 2048, "maxTextLength": 100}"#)
        defer { daemon.stop() }
        let client = try daemon.connect()
        let long = #"{"jsonrpc":"2.0","id":1,"method":"layout","params":{"text":""# + String(repeating: "a", count: 5000) + #""}}"#
        let reply = try #require(try client.raw(long))
        #expect(reply["error"]?["code"] == -32600)
        #expect(reply["error"]?["message"]?.stringValue?.contains("2048") == true)
        #expect(try client.connection.receive() == nil, "the connection is closed after an oversized message")

        // Text over the configured length is a params error naming `text`; the daemon is fine.
        let other = try daemon.connect()
        let tooLong = try other.call("layout", ["text": .string(String(repeating: "b", count: 101))])
        #expect(tooLong["error"]?["data"]?["field"] == "text")
        #expect(try other.result("ping")["pong"] == true)
    }
}

/// Every input the fuzzers found a bug with (Fuzz/regressions/service/*.json, one JSON-RPC
/// line each), sent through the socket: each gets a well-formed answer that is not an
/// internal error, and the daemon stays up.
@Suite("Fuzzing regressions through the socket")
struct FuzzRegressionTests {
    @Test func eachFoundBugStaysFixed() throws {
        let folder = "\(repositoryRoot)/Fuzz/regressions/service"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count >= 4)
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        for file in files {
            let line = try String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let reply = try #require(try client.raw(line), "no answer to \(file)")
            #expect(reply["jsonrpc"] == "2.0", "\(file)")
            #expect(reply["error"]?["code"] != -32603, "\(file): \(JSONWriter.string(reply["error"] ?? .null))")
            #expect((reply["result"] == nil) != (reply["error"] == nil), "\(file)")
            #expect(try client.result("ping")["pong"] == true)
        }
    }
}
