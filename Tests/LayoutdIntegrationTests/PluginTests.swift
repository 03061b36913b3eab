import Foundation
import LayoutProtocol
import Testing

/// The UTF-16 range of the first `needle` in `text`, as the protocol's default offsets.
func utf16Range(of needle: String, in text: String) -> (start: Int, end: Int) {
    guard let r = text.range(of: needle) else { return (-1, -1) }
    return (text.utf16.distance(from: text.startIndex, to: r.lowerBound),
            text.utf16.distance(from: text.startIndex, to: r.upperBound))
}

/// Compiles C `source` into `folder/name.so` against the ABI header; the path.
func compilePlugin(_ source: String, name: String, in folder: String) throws -> String {
    let file = "\(folder)/\(name).c"
    try source.write(toFile: file, atomically: true, encoding: .utf8)
    let output = "\(folder)/\(name).so"
    let cc = Process()
    cc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    cc.arguments = ["cc", "-shared", "-fPIC", "-I", "\(repositoryRoot)/Sources/CLayoutPlugin/include", file, "-o", output]
    try cc.run()
    cc.waitUntilExit()
    #expect(cc.terminationStatus == 0, "cc \(name).c")
    return output
}

/// A region of `kind` in a layout result, by its start.
func regions(_ result: JSONValue, kind: String) -> [JSONValue] {
    (result["regions"]?.arrayValue ?? []).filter { $0["kind"]?.stringValue == kind }
}

@Suite("Plugins through the socket")
struct PluginTests {
    static let chat = "很久很久以前[smile]，在一个群里，生活着@百度、@腾讯这样的居民 … https://example.com/a?b=1 … #话题#"

    @Test func initializeListsTheShippedPlugins() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let plugins = try client.result("initialize", [:])["capabilities"]?["plugins"]?.arrayValue ?? []
        let byName = Dictionary(plugins.compactMap { p in p["name"]?.stringValue.map { ($0, p) } }, uniquingKeysWith: { a, _ in a })
        #expect(byName["links"]?["kind"] == "linkDetector")
        #expect(byName["shortcodes"]?["kind"] == "attachmentProvider")
        #expect(byName["render"]?["kind"] == "lineRenderer")
        #expect(byName["ticket"]?["kind"] == "linkDetector")
        #expect(byName["links"]?["version"]?.stringValue?.isEmpty == false)
        let stats = try client.result("stats")
        #expect(stats["plugins"]?["loaded"]?.arrayValue?.count == plugins.count)
        #expect(stats["plugins"]?["failed"]?.arrayValue?.isEmpty == true)
    }

    @Test func chatMessageYieldsMentionURLHashtagAndAttachmentRegions() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = Self.chat
        let result = try client.result("layout", ["text": .string(text), "width": 240,
                                                   "detectors": ["mention", "url", "hashtag"], "attachments": true])
        let smile = utf16Range(of: "[smile]", in: text)
        let baidu = utf16Range(of: "@百度", in: text)
        let url = utf16Range(of: "https://example.com/a?b=1", in: text)
        let topic = utf16Range(of: "#话题#", in: text)
        let attachment = regions(result, kind: "attachment")
        #expect(attachment.count == 1)
        #expect(attachment.first?["start"] == .number(Double(smile.start)))
        #expect(attachment.first?["end"] == .number(Double(smile.end)))
        #expect(attachment.first?["value"]?.stringValue?.contains("smile") == true)
        // The object has its own box: about 1.2 em wide at the default 16 points.
        let box = attachment.first?["rects"]?.arrayValue?.first
        #expect(abs((box?["width"]?.doubleValue ?? 0) - 19.2) < 0.01)
        let mentions = regions(result, kind: "mention")
        #expect(mentions.first?["start"] == .number(Double(baidu.start)))
        #expect(mentions.first?["end"] == .number(Double(baidu.end)))
        #expect(mentions.first?["value"] == "百度")
        #expect(mentions.count == 2, "@百度 and @腾讯…")
        let urls = regions(result, kind: "url")
        #expect(urls.count == 1)
        #expect(urls.first?["start"] == .number(Double(url.start)))
        #expect(urls.first?["end"] == .number(Double(url.end)))
        #expect(urls.first?["value"] == "https://example.com/a?b=1")
        let hashtags = regions(result, kind: "hashtag")
        #expect(hashtags.first?["start"] == .number(Double(topic.start)))
        #expect(hashtags.first?["end"] == .number(Double(topic.end)))
        #expect(hashtags.first?["value"] == "话题")
        // The attachment is one cluster: no line starts inside it, and the text's size
        // changed from the plain layout (the code's glyphs are gone, the object is there).
        for line in result["lines"]?.arrayValue ?? [] {
            let start = line["start"]?.intValue ?? 0
            #expect(!(start > smile.start && start < smile.end))
        }
        // Without plugins asked, no such regions.
        let plain = try client.result("layout", ["text": .string(text), "width": 240])
        #expect(plain["regions"]?.arrayValue?.isEmpty == true)
    }

    @Test func aWrappedLinkHasOneRectPerLine() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "Read https://example.com/a/very/long/path/that/wraps/over/several/lines/of/a/narrow/box?with=query&and=more today"
        let result = try client.result("layout", ["text": .string(text), "width": 150, "paragraph": ["wrap": "char"],
                                                   "detectors": ["url"]])
        let url = try #require(regions(result, kind: "url").first)
        let rects = url["rects"]?.arrayValue ?? []
        let lines = result["lines"]?.arrayValue ?? []
        #expect(rects.count >= 3)
        // Each rect sits inside a different line's box.
        let ys = rects.compactMap { $0["y"]?.doubleValue }
        #expect(Set(ys).count == rects.count)
        for rect in rects {
            let y = rect["y"]?.doubleValue ?? -1
            #expect(lines.contains { l in
                let top = l["y"]?.doubleValue ?? 0, height = l["height"]?.doubleValue ?? 0
                return y >= top - 0.01 && y < top + height
            })
        }
    }

    @Test func literalTableFromTheRequestAndUTF8Offsets() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        _ = try client.result("initialize", ["offsetEncodings": ["utf-8"]])
        let text = "问问@百度一下，或者@百度"
        let result = try client.result("layout", [
            "text": .string(text),
            "detectors": [["kind": "literal", "table": ["@百度": "https://www.baidu.com", "@百度一下": "https://www.baidu.com/s"]]],
        ])
        let hits = regions(result, kind: "literal")
        #expect(hits.count == 2)
        let first = Array(text.utf8).count - Array("@百度一下，或者@百度".utf8).count
        #expect(hits.first?["start"] == .number(Double(first)))
        #expect(hits.first?["end"] == .number(Double(first + Array("@百度一下".utf8).count)))
        #expect(hits.first?["value"] == "https://www.baidu.com/s")
        #expect(hits.last?["value"] == "https://www.baidu.com")
    }

    @Test func unknownKindsAndProvidersAreInvalidParams() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let reply = try client.call("layout", ["text": "hi", "detectors": ["telepathy"]])
        #expect(reply["error"]?["code"] == -32602)
        #expect(reply["error"]?["data"]?["field"] == "detectors[0]")
        #expect(reply["error"]?["message"]?.stringValue?.contains("url") == true, "names what is available")
        let bad = try client.call("layout", ["text": "hi", "attachments": ["nothing"]])
        #expect(bad["error"]?["code"] == -32602)
        let wrongType = try client.call("layout", ["text": "hi", "detectors": "url"])
        #expect(wrongType["error"]?["data"]?["field"] == "detectors")
        let noRenderer = try client.call("render", ["text": "hi", "format": "png", "renderer": "nope"])
        #expect(noRenderer["error"]?["data"]?["field"] == "renderer")
        let badFormat = try client.call("render", ["text": "hi", "format": "gif"])
        #expect(badFormat["error"]?["data"]?["field"] == "format")
        #expect(try client.result("ping")["pong"] == true)
    }

    @Test func decorationsComeBackPerLine() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "Ping @alice about https://example.com and #launch"
        let result = try client.result("layout", ["text": .string(text), "width": 400,
                                                   "detectors": ["mention", "url", "hashtag"], "decorations": true])
        let decorations = result["lines"]?.arrayValue?.first?["decorations"]?.arrayValue ?? []
        let pills = decorations.filter { $0["role"] == "pill" }
        let underlines = decorations.filter { $0["role"] == "underline" }
        #expect(pills.count == 2, "mention and hashtag")
        #expect(underlines.count == 1, "the url")
        let mention = try #require(regions(result, kind: "mention").first?["rects"]?.arrayValue?.first)
        let pill = try #require(pills.first)
        #expect(pill["shape"] == "roundedRect")
        #expect(abs((pill["x"]?.doubleValue ?? 0) - (mention["x"]?.doubleValue ?? 1)) < 2)
        #expect(underlines.first?["shape"] == "line")
    }
}
