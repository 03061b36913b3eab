import LayoutEngine
import LayoutProtocol
import Testing
@testable import LayoutServer

/// Methods through the dispatcher in process: typed params read once, typed results written
/// as the wire shows them, offsets in the connection's encoding.
@Suite struct MethodTests {
    @Test func retainedLayoutAnswersQueriesUntilReleased() throws {
        let service = makeService(), session = Session()
        let laid = try #require(try exchange(service, request(1, "layout", ["text": "hello world", "width": 60, "retain": true]), session: session))
        let handle = try #require(laid["result"]?["handle"]?.stringValue)
        let lines = try #require(laid["result"]?["lines"]?.arrayValue)
        #expect(lines.count == 2)
        let caret = try #require(try exchange(service, request(2, "caret", ["handle": .string(handle), "index": 6]), session: session))
        #expect(caret["result"]?["line"] == 1)
        #expect(caret["result"]?["x"] == lines[1]["x"])
        let word = try exchange(service, request(3, "word", ["handle": .string(handle), "index": 7]), session: session)
        #expect(word?["result"] == ["start": 6, "end": 11])
        let range = try exchange(service, request(4, "lineRange", ["handle": .string(handle), "index": 0]), session: session)
        #expect(range?["result"]?["paragraph"] == ["start": 0, "end": 11])
        #expect(try exchange(service, request(5, "release", ["handle": .string(handle)]), session: session)?["result"] == ["released": true])
        let gone = try exchange(service, request(6, "hitTest", ["handle": .string(handle), "x": 0, "y": 0]), session: session)
        #expect(gone?["error"]?["code"] == -32001)
    }

    @Test func offsetsAreCheckedAgainstTheText() throws {
        let service = makeService(), session = Session()
        let past = try exchange(service, request(1, "caret", ["text": "ab", "index": 3]), session: session)
        #expect(past?["error"]?["data"]?["field"] == "index")
        #expect(past?["error"]?["message"]?.stringValue?.contains("`index` is past the end of the text (2 UTF-16 units)") == true)
        let inside = try exchange(service, request(2, "caret", ["text": "😀x", "index": 1]), session: session)
        #expect(inside?["error"]?["message"]?.stringValue?.contains("inside a character") == true)
        let missing = try exchange(service, request(3, "word", ["text": "ab"]), session: session)
        #expect(missing?["error"]?["message"]?.stringValue?.contains("`index` is required (a text offset ≥ 0)") == true)
    }

    @Test func updateAppliesEditsInOrderAndSaysWhatChanged() throws {
        let service = makeService(), session = Session()
        let laid = try exchange(service, request(1, "layout", ["text": "one", "retain": true]), session: session)
        let handle = try #require(laid?["result"]?["handle"]?.stringValue)
        let edits: JSONValue = [["start": 3, "end": 3, "text": " two"], ["start": 0, "end": 3, "text": "1"]]
        let updated = try #require(try exchange(service, request(2, "update", ["handle": .string(handle), "edits": edits]), session: session))
        let diff = updated["result"]?["diff"]
        #expect(diff?["inserted"] == [["start": 1, "end": 5], ["start": 0, "end": 1]])
        #expect(diff?["firstLine"] == 0)
        #expect(updated["result"]?["lines"]?.arrayValue?.first?["end"] == 5)
        let refused = try exchange(service, request(3, "update", ["handle": .string(handle), "edits": [["start": 9, "end": 9]]]), session: session)
        #expect(refused?["error"]?["data"]?["field"] == "edits[0].start")
    }

    @Test func selectionsSpanLayoutsInEitherOrder() throws {
        let service = makeService(), session = Session()
        var handles: [JSONValue] = []
        for (i, text) in ["first", "second"].enumerated() {
            let laid = try exchange(service, request(i, "layout", ["text": .string(text), "retain": true]), session: session)
            handles.append(try #require(laid?["result"]?["handle"]))
        }
        let layouts: JSONValue = [["handle": handles[0]], ["handle": handles[1], "origin": ["x": 0, "y": 100]]]
        let params: JSONValue = ["layouts": layouts, "start": ["layout": 1, "index": 3], "end": ["layout": 0, "index": 2]]
        let text = try exchange(service, request(3, "selectedText", params), session: session)
        #expect(text?["result"] == ["text": "rst\nsec"])
        let rects = try exchange(service, request(4, "rects", params), session: session)
        let parts = try #require(rects?["result"]?["layouts"]?.arrayValue)
        #expect(parts.map { $0["layout"] } == [0, 1])
        #expect((parts[1]["rects"]?.arrayValue?.first?["y"]?.doubleValue ?? 0) >= 100)
    }

    @Test func offsetEncodingChosenAtInitializeAppliesToAnswers() throws {
        let service = makeService(), session = Session()
        _ = try exchange(service, request(1, "initialize", ["offsetEncodings": ["utf-8"]]), session: session)
        let boundaries = try exchange(service, request(2, "boundaries", ["text": "é a", "kind": "word"]), session: session)
        #expect(boundaries?["result"] == ["offsets": [0, 2, 3, 4]])
    }

    @Test func anUnknownHandleIsReportedBeforeTheOtherParams() throws {
        let service = makeService(), session = Session()
        let requests: [(String, JSONValue)] = [("hitTest", ["handle": "gone"]), ("caret", ["handle": "gone", "index": -1]),
                                               ("lineRange", ["handle": "gone", "affinity": "sideways"]),
                                               ("rects", ["handle": "gone", "start": 0]), ("update", ["handle": "gone"])]
        for (i, (method, params)) in requests.enumerated() {
            let reply = try exchange(service, request(i, method, params), session: session)
            #expect(reply?["error"]?["code"] == -32001, "\(method): \(String(describing: reply))")
        }
        // A handle that is itself refused is named as such, and a known one lets the params speak.
        let long = JSONValue.string(String(repeating: "h", count: 300))
        #expect(try exchange(service, request(8, "caret", ["handle": long, "index": 0]), session: session)?["error"]?["data"]?["field"] == "handle")
        let laid = try exchange(service, request(9, "layout", ["text": "ab", "retain": true]), session: session)
        let handle = try #require(laid?["result"]?["handle"])
        #expect(try exchange(service, request(10, "hitTest", ["handle": handle]), session: session)?["error"]?["data"]?["field"] == "x")
    }
}
