import LayoutProtocol
import Testing

/// `limits.maxDocumentLength` through the real daemon: a retained document may be longer
/// than `maxTextLength` (which still bounds one-shot requests) up to its own limit, and
/// layouts and edits past it are refused naming the field and the limit.
@Suite struct DocumentLengthTests {
    @Test func retainedDocumentsAreBoundByMaxDocumentLength() throws {
        let daemon = try Daemon(limits: #"{"maxTextLength": 100, "maxDocumentLength": 300}"#)
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = JSONValue.string(String(repeating: "word ", count: 40))   // 200 units
        let oneShot = try client.call("layout", ["text": text, "width": 200])
        #expect(oneShot["error"]?["code"] == -32602)
        #expect(oneShot["error"]?["data"]?["field"] == "text")
        #expect(oneShot["error"]?["message"]?.stringValue?.contains("maxDocumentLength") == true)
        let handle = try #require(client.result("layout", ["text": text, "width": 200, "retain": true])["handle"])
        let grown = try client.result("update", ["handle": handle, "edits": [["start": 0, "end": 0, "text": .string(String(repeating: "x", count: 100))]]])
        #expect(grown["lines"]?.arrayValue?.last?["end"] == 300)
        let over = try client.call("update", ["handle": handle, "edits": [["start": 0, "end": 0, "text": "y"]]])
        #expect(over["error"]?["code"] == -32602)
        #expect(over["error"]?["data"]?["field"] == "edits[0].text")
        #expect(over["error"]?["message"]?.stringValue?.contains("maxDocumentLength") == true)
        let tooLong = try client.call("layout", ["text": .string(String(repeating: "z", count: 301)), "retain": true])
        #expect(tooLong["error"]?["data"]?["field"] == "text")
        #expect(tooLong["error"]?["message"]?.stringValue?.contains("300 (limits.maxDocumentLength") == true)
        let stats = try client.result("stats")
        #expect((stats["caches"]?["retainedLayouts"]?["bytes"]?.doubleValue ?? 0) > 300, "the retained document's memory is counted")
    }
}
