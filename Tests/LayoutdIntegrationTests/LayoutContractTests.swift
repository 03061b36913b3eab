import Foundation
import LayoutProtocol
import Testing

/// Checks the pinned `layout` contract through the real socket.
@Suite(.serialized) struct LayoutContractTests {
    /// Lines contiguous and covering the text; no line wider than the width unless it holds one
    /// grapheme cluster; y increasing with lines stacked; each baseline inside its line box.
    func checkContract(_ result: LayoutResult, text: String, width: Double, label: String) {
        let units = Array(text.utf16)
        #expect(result.truncated == false)
        #expect(result.regions.isEmpty)
        #expect(result.lines.first?.start == 0, "\(label): first line starts at 0")
        #expect(result.lines.last?.end == units.count, "\(label): last line ends at the text's end")
        for (a, b) in zip(result.lines, result.lines.dropFirst()) {
            #expect(a.end == b.start, "\(label): lines contiguous")
            #expect(b.y > a.y, "\(label): y increases")
            #expect(abs(b.y - (a.y + a.height)) <= 0.002, "\(label): lines stack")
        }
        for line in result.lines {
            #expect(line.baseline > line.y && line.baseline < line.y + line.height, "\(label): baseline inside the box")
            #expect(line.x >= 0 && line.x + line.width <= width + 0.002 || clusterCount(units, line) <= 1,
                    "\(label): line [\(line.start), \(line.end)) is \(line.width) wide at width \(width)")
        }
        #expect(abs(result.height - ((result.lines.last?.y ?? 0) + (result.lines.last?.height ?? 0))) <= 0.002)
        #expect(result.width <= width + 0.002)
    }

    func clusterCount(_ units: [UInt16], _ line: LineResult) -> Int {
        let s = String(decoding: units[line.start..<line.end], as: UTF16.self)
        return s.trimmingCharacters(in: .whitespacesAndNewlines).count
    }

    @Test func corpusParagraphsInEveryScriptKeepTheContract() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let corpus = try loadCorpus()
        let languages = Set(corpus.map(\.lang))
        #expect(languages.count >= 17)
        var checked = 0
        for lang in languages.sorted() {
            for paragraph in corpus.filter({ $0.lang == lang }).prefix(3) {
                for width in [300.0, 120.0] {
                    let raw = try client.result("layout", LayoutParams(
                        text: paragraph.text, width: width, font: FontSpec(family: "Noto Sans", size: 16)).json)
                    let result = try #require(LayoutResult(json: raw))
                    #expect(result.lines.count > 1, "\(paragraph.id) wraps at \(width)")
                    checkContract(result, text: paragraph.text, width: width, label: "\(paragraph.id)@\(width)")
                    checked += 1
                }
            }
        }
        #expect(checked >= 17 * 3 * 2)
    }

    @Test func withoutWidthOnlyNewlinesBreak() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let text = "first paragraph is long enough to wrap anywhere\nsecond\u{2029}third\n"
        let result = try #require(LayoutResult(json: client.result("layout", ["text": .string(text)])))
        #expect(result.lines.map { [$0.start, $0.end] } == [[0, 48], [48, 55], [55, 61], [61, 61]])
        #expect(result.width == result.lines.map(\.width).max())
    }

    @Test func offsetsFollowTheChosenEncoding() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let text = "naïve 😀 café 你好世界 مرحبا بالعالم Ελληνικά"
        var ends: [String: [Int]] = [:]
        for encoding in ["utf-16", "utf-8", "utf-32"] {
            let client = try daemon.connect()
            let info = try client.result("initialize", ["offsetEncodings": [.string(encoding)]])
            #expect(info["offsetEncoding"] == .string(encoding))
            let result = try #require(LayoutResult(json: client.result("layout", ["text": .string(text), "width": 90])))
            ends[encoding] = result.lines.map(\.end)
        }
        #expect(ends["utf-16"]?.last == text.utf16.count)
        #expect(ends["utf-8"]?.last == text.utf8.count)
        #expect(ends["utf-32"]?.last == text.unicodeScalars.count)
        // The same line breaks, counted three ways.
        let breaks16 = try #require(ends["utf-16"]).dropLast()
        let asUTF8 = breaks16.map { String(decoding: Array(text.utf16)[0..<$0], as: UTF16.self).utf8.count }
        let asUTF32 = breaks16.map { String(decoding: Array(text.utf16)[0..<$0], as: UTF16.self).unicodeScalars.count }
        #expect(Array(try #require(ends["utf-8"]).dropLast()) == asUTF8)
        #expect(Array(try #require(ends["utf-32"]).dropLast()) == asUTF32)
    }

    @Test func initializeDescribesTheServer() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let info = try client.result("initialize", ["client": ["name": "tests"]])
        #expect(info["protocolVersion"] == 1)
        #expect(info["offsetEncoding"] == "utf-16")
        #expect(info["server"]?["name"] == "layoutd")
        #expect(info["capabilities"]?["methods"]?.arrayValue?.contains("layout") == true)
        #expect(info["capabilities"]?["methods"]?.arrayValue?.contains("render") == true)
        let plugins = info["capabilities"]?["plugins"]?.arrayValue ?? []
        #expect(plugins.allSatisfy { $0["name"]?.stringValue != nil && $0["kind"]?.stringValue != nil && $0["version"]?.stringValue != nil })
        #expect(plugins.count == 4, "the shipped plugins load by default")
        let fallback = try client.result("initialize", ["offsetEncodings": ["utf-7", "utf-32"]])
        #expect(fallback["offsetEncoding"] == "utf-32")
        let refused = try client.call("initialize", ["offsetEncodings": ["latin-1"]])
        #expect(refused["error"]?["code"] == -32602)
    }

    @Test func unknownFamilyFallsBackAndFontSizeScales() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        func width(_ font: JSONValue) throws -> Double {
            try #require(LayoutResult(json: client.result("layout", ["text": "Hello", "font": font]))).width
        }
        let known = try width(["family": "Noto Sans", "size": 16])
        #expect(try width(["family": "No Such Family", "size": 16]) == known)
        #expect(abs(try width(["family": "Noto Sans", "size": 32]) - 2 * known) < 0.01)
        #expect(try width(["family": "DejaVu Sans Mono", "size": 16]) != known)
    }

    @Test func severalClientsAtOnce() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let corpus = try loadCorpus().prefix(40)
        let reference = try daemon.connect()
        let expected = try corpus.map { try reference.result("layout", ["text": .string($0.text), "width": 250]) }
        let failures = Mutex(0)
        let socket = daemon.socketPath
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let client = try Client(path: socket)
                for (i, p) in corpus.enumerated() {
                    let r = try client.result("layout", ["text": .string(p.text), "width": 250])
                    if r != expected[i] { failures.withLock { $0 += 1 } }
                }
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
    }
}

import Synchronization
