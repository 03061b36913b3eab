import Foundation
import LayoutProtocol
import Testing

/// Every parameter of every method, given a value of the wrong type, gets -32602 naming it;
/// the connection carries on.
@Suite("Wrong types for every parameter of every method")
struct ParamTypeTests {
    /// A value of each JSON type but `keep`'s.
    static func wrongValues(for valid: JSONValue, path: String = "") -> [JSONValue] {
        // `decorations` takes true, a renderer name or an object: only numbers and arrays are wrong.
        if path == "decorations" { return [42.5, ["a"]] }
        let all: [JSONValue] = ["text", 42.5, true, ["a"], ["k": 1]]
        return all.filter { candidate in
            switch (candidate, valid) {
            case (.string, .string), (.number, .number), (.bool, .bool), (.array, .array), (.object, .object): return false
            default: return true
            }
        }
    }

    /// (method, base params that work, [(path of the parameter, a valid value)]).
    static func table(handle: String) -> [(String, [(String, JSONValue)], [(String, JSONValue)])] {
        let layoutBase: [(String, JSONValue)] = [("text", "Hello, world")]
        let layoutParams: [(String, JSONValue)] = [
            ("text", "x"), ("width", 100), ("language", "en"), ("detail", "runs"), ("spans", []), ("scale", 1),
            ("font", ["size": 12]), ("font.family", "Noto Sans"), ("font.size", 12), ("font.weight", 400),
            ("font.style", "italic"), ("font.features", ["kern": true]), ("font.variations", ["wght": 500]),
            ("paragraph", ["align": "center"]), ("paragraph.align", "center"), ("paragraph.maxLines", 2),
            ("paragraph.lineSpacing", 2), ("paragraph.truncation", ["mode": "tail"]), ("paragraph.direction", "rtl"),
            ("paragraph.wrap", "char"), ("paragraph.tabStops", []), ("paragraph.headIndent", 4),
            ("insets", ["top": 1]), ("insets.left", 2), ("exclusions", []), ("detectors", ["url"]),
            ("decorations", ["renderer": "render"]),
        ]
        let handleBase: [(String, JSONValue)] = [("handle", .string(handle))]
        return [
            ("initialize", [], [("offsetEncodings", ["utf-8"]), ("client", ["name": "t"]), ("subscribe", ["fontsChanged"])]),
            ("layout", layoutBase, layoutParams + [("retain", true)]),
            ("measure", layoutBase, layoutParams),
            ("boundaries", [("text", "ab"), ("kind", "word")], [("text", "ab"), ("kind", "word"), ("language", "en")]),
            ("hitTest", handleBase + [("x", 1), ("y", 1)], [("handle", .string(handle)), ("x", 1), ("y", 1)]),
            ("caret", handleBase + [("index", 0)], [("handle", .string(handle)), ("index", 0)]),
            ("rects", handleBase + [("start", 0), ("end", 1)], [("start", 0), ("end", 1)]),
            ("word", handleBase + [("index", 0)], [("index", 0)]),
            ("lineRange", handleBase + [("index", 0)], [("index", 0)]),
            ("selectedText", [("layouts", [["handle": .string(handle)]]), ("start", ["layout": 0, "index": 0]),
                              ("end", ["layout": 0, "index": 1])],
             [("layouts", [["handle": .string(handle)]]), ("start", ["layout": 0, "index": 0]), ("start.index", 0),
              ("end", ["layout": 0, "index": 1]), ("separator", " ")]),
            ("update", handleBase + [("edits", [])], [("handle", .string(handle)), ("edits", [])]),
            ("render", handleBase + [("format", "png")], [
                ("format", "png"), ("scale", 1), ("overlay", true), ("highlight", ["start": 0, "end": 1]),
                ("selection", ["start": 0, "end": 1]), ("background", "#ffffff"), ("renderer", "render"), ("options", [:]),
            ]),
            ("release", [("handle", "nothing")], [("handle", "x")]),
        ]
    }

    /// Sets `path` ("a.b") in `params` to `value`.
    static func setting(_ params: [(String, JSONValue)], _ path: String, _ value: JSONValue) -> JSONValue {
        let parts = path.split(separator: ".").map(String.init)
        func set(_ object: JSONValue, _ rest: ArraySlice<String>) -> JSONValue {
            var members = object.objectMembers ?? []
            let key = rest.first!
            if rest.count == 1 {
                members.removeAll { $0.0 == key }
                members.append((key, value))
            } else {
                let inner = members.last { $0.0 == key }?.1 ?? [:]
                members.removeAll { $0.0 == key }
                members.append((key, set(inner.isObject ? inner : [:], rest.dropFirst())))
            }
            return .object(members)
        }
        return set(.object(params), parts[...])
    }

    @Test func eachWrongTypeIsNamed() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let handle = try #require(client.result("layout", ["text": "Hello, world", "retain": true])["handle"]?.stringValue)
        var failures: [String] = []
        var checked = 0
        for (method, base, params) in Self.table(handle: handle) {
            for (path, valid) in params {
                for wrong in Self.wrongValues(for: valid, path: path) {
                    let request = Self.setting(base, path, wrong)
                    let reply = try client.call(method, request)
                    checked += 1
                    let code = reply["error"]?["code"]?.intValue
                    let field = reply["error"]?["data"]?["field"]?.stringValue ?? ""
                    let top = path.split(separator: ".").first.map(String.init) ?? path
                    if code != -32602 || !(field == path || field.hasPrefix(path + ".") || field.hasPrefix(path + "[")
                                           || (path.contains(".") == false && field.hasPrefix(top))) {
                        failures.append("\(method) \(path) = \(JSONWriter.string(wrong)) → \(JSONWriter.string(reply["error"] ?? reply["result"].map { _ in "result" } ?? .null))")
                    }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of \(checked) not refused with their field:\n\(failures.joined(separator: "\n"))")
        #expect(checked > 150)
        #expect(try client.result("ping")["pong"] == true)
    }
}
