import LayoutEngine
import LayoutProtocol
import Testing
@testable import LayoutServer

/// The dispatcher in process: one method table drives routing, the advertised methods and
/// "method not found"; batches and notifications are answered in one place.
@Suite struct DispatchTests {
    @Test func everyAdvertisedMethodIsRoutedByTheTable() throws {
        let names = MethodRegistry.names
        #expect(names == ["initialize", "layout", "measure", "boundaries", "hitTest", "caret", "rects", "word",
                          "lineRange", "selectedText", "update", "release", "render", "stats", "reload", "ping"])
        let service = makeService(), session = Session()
        let answer = try #require(try exchange(service, request(1, "initialize", [:]), session: session))
        #expect(answer["result"]?["capabilities"]?["methods"] == .array(names.map { .string($0) }))
        // Every name reaches its own method: what each answers to empty params is its own.
        let expected: [String: String] = [
            "initialize": "result protocolVersion", "layout": "field text", "measure": "field text",
            "boundaries": "field text", "hitTest": "field handle", "caret": "field handle", "rects": "field handle",
            "word": "field handle", "lineRange": "field handle", "selectedText": "field layouts",
            "update": "field handle", "release": "field handle", "render": "field format", "stats": "result server",
            "reload": "error -32000", "ping": "result pong"]
        #expect(Set(expected.keys) == Set(names))
        for (i, name) in names.enumerated() {
            let reply = try #require(try exchange(service, request(i + 2, name, [:]), session: session))
            #expect(Self.signature(reply) == expected[name], "\(name): \(reply)")
        }
    }

    /// What a reply to empty params shows of the method that gave it: the field its -32602
    /// names, another error's code, or the first member of its result.
    static func signature(_ reply: JSONValue) -> String? {
        if let error = reply["error"] {
            if let field = error["data"]?["field"]?.stringValue { return "field \(field)" }
            return error["code"]?.doubleValue.map { "error \(Int($0))" }
        }
        return reply["result"]?.objectMembers?.first.map { "result \($0.0)" }
    }

    @Test func routesFollowEachMethodsOrder() throws {
        let service = makeService(), session = Session()
        func route(_ method: String, _ params: JSONValue = [:]) -> String {
            switch service.route(line: Array(request(1, method, params).utf8), session: session) {
            case .reply: "reply"
            case .ordered: "ordered"
            case .job(_, let quick): quick ? "quick job" : "job"
            }
        }
        #expect(route("initialize") == "reply")
        #expect(route("release", ["handle": "x"]) == "reply")
        #expect(route("$/cancelRequest", ["id": 7]) == "reply")
        #expect(route("update") == "ordered")
        #expect(route("layout", ["text": "a"]) == "quick job")
        #expect(route("hitTest") == "quick job")
        #expect(route("rects") == "job")
        #expect(route("render") == "job")
        #expect(route("stats") == "job")
        #expect(route("nonsense") == "reply")
    }

    @Test func unknownMethodsAreNamedAndCountedUnderOneName() throws {
        let service = makeService(), session = Session()
        for i in 0..<3 {
            let reply = try #require(try exchange(service, request(i, "nope\(i)", [:]), session: session))
            #expect(reply["error"]?["code"] == -32601)
            #expect(reply["error"]?["message"]?.stringValue?.hasPrefix("method not found: \"nope\(i)\"; this server answers initialize, layout") == true)
        }
        let stats = try #require(try exchange(service, request(9, "stats", [:]), session: session))
        let byMethod = stats["result"]?["requests"]?["byMethod"]
        #expect(byMethod?[MethodRegistry.unknownName] == 3)
        #expect(byMethod?["nope0"] == nil)
    }

    @Test func batchesAnswerEachMemberAndSkipNotifications() throws {
        let service = makeService(), session = Session()
        let line = "[" + request(1, "ping", [:]) + #",{"jsonrpc":"2.0","method":"ping"},"# + request(2, "measure", ["text": "hi"])
            + #",{"jsonrpc":"2.0","id":3}]"#
        let reply = try #require(try exchange(service, line, session: session)?.arrayValue)
        #expect(reply.count == 3)
        #expect(reply[0]["result"]?["pong"] == true)
        #expect(reply[1]["result"]?["lineCount"] == 1)
        #expect(reply[2]["error"]?["code"] == -32600)
        #expect(try exchange(service, "[]", session: session)?["error"]?["code"] == -32600)
        #expect(try exchange(service, #"{"jsonrpc":"2.0","method":"ping"}"#, session: session) == nil)
        #expect(try exchange(service, "{", session: session)?["error"]?["code"] == -32700)
    }

    @Test func cancelledBeforeItRunsAnswersCancelled() throws {
        let service = makeService(), session = Session()
        guard case .job(let job, _) = service.route(line: Array(request(5, "layout", ["text": "abc"]).utf8), session: session) else {
            Issue.record("layout is not a job"); return
        }
        _ = try exchange(service, #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":5}}"#, session: session)
        let reply = try JSONParser.parse(try #require(job()))
        #expect(reply["error"]?["code"] == -32800)
    }
}
