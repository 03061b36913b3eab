import Foundation
import LayoutClient
import LayoutProtocol
import Testing

/// The Swift client library against the real daemon.
@Suite(.serialized) struct LayoutClientTests {
    static let text = "Grüße aus Köln, Ünal!"

    @Test func laysOutMeasuresAndQueries() async throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = LayoutClient(socket: daemon.socketPath)
        let server = try await client.connect()
        #expect(server.serverName == "layoutd")
        #expect(server.offsetEncoding == "utf-16")
        let layout = try await client.layout(LayoutParams(text: Self.text, width: 100), retain: true)
        #expect(layout.lines.map { [$0.start, $0.end] } == [[0, 10], [10, 21]])
        let handle = try #require(layout.handle)
        let measure = try await client.measure(LayoutParams(text: Self.text, width: 100))
        #expect(measure.lineCount == 2 && measure.height == layout.height)
        let hit = try await client.hitTest(handle: handle, x: 30, y: 30)
        #expect((hit.index, hit.character, hit.line) == (14, 13, 1))
        let caret = try await client.caret(handle: handle, index: 10)
        #expect(caret.line == 1 && caret.x == 0)
        let rects = try await client.rects(handle: handle, start: 0, end: 21)
        #expect(rects.count == 2)
        let update = try await client.update(handle: handle, edits: [.init(start: 21, end: 21, text: " Bis bald, bis bald!")])
        #expect(update.diff.firstLine == 1 && update.layout.lines.last?.end == 41)
        #expect(try await client.release(handle: handle))
        await client.close()
    }

    /// Spans and paragraph members set on `LayoutParams` reach the daemon.
    @Test func spansAndParagraphTravel() async throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = LayoutClient(socket: daemon.socketPath, offsetEncoding: .utf32)
        var params = LayoutParams(text: "A long message that will not fit in two lines at this width", width: 120)
        params.paragraph.maxLines = 2
        var link = SpanAttributes()
        link.link = "https://example.com"
        params.spans = [SpanParams(start: 2, end: 6, attributes: link)]
        let layout = try await client.layout(params)
        #expect(layout.truncated && layout.lines.count == 2)
        #expect(layout.regions.map(\.kind) == ["link", "truncation"])
    }

    /// Errors come as `LayoutClientError`, with the field of invalid params.
    @Test func errorsAreTyped() async throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = LayoutClient(socket: daemon.socketPath)
        do {
            _ = try await client.layout(LayoutParams(text: "x", width: -1))
            Issue.record("a negative width was accepted")
        } catch {
            guard case .server(let code, _, let field) = error else { Issue.record("\(error)"); return }
            #expect(code == -32602 && field == "width")
        }
        do {
            _ = try await client.hitTest(handle: "nope", x: 0, y: 0)
            Issue.record("an unknown handle was accepted")
        } catch {
            guard case .server(let code, _, _) = error else { Issue.record("\(error)"); return }
            #expect(code == LayoutClientError.unknownHandle)
        }
        let nowhere = LayoutClient(socket: "\(daemon.folder)/none.sock")
        do {
            _ = try await nowhere.ping()
            Issue.record("no daemon, yet an answer")
        } catch {
            guard case .noDaemon(let tried) = error else { Issue.record("\(error)"); return }
            #expect(tried.count == 1 && tried[0].hasPrefix("\(daemon.folder)/none.sock: "))
        }
    }

    /// Many tasks' requests on one connection each get their own answer; a cancelled task's
    /// request is cancelled and the connection carries on.
    @Test func pipeliningAndCancellation() async throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = LayoutClient(socket: daemon.socketPath)
        let counts = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for n in 1...8 {
                group.addTask { (n, try await client.measure(LayoutParams(text: String(repeating: "word ", count: n * 4), width: 60)).lineCount) }
            }
            return try await group.reduce(into: [Int: Int]()) { $0[$1.0] = $1.1 }
        }
        #expect((1...8).map { counts[$0] ?? 0 } == (1...8).map { counts[$0] ?? 0 }.sorted())
        #expect((counts[8] ?? 0) > (counts[1] ?? 0))
        // Cancelled at once, before or while its request is sent, or after: each time the
        // request is cancelled, never left to run (it would take seconds).
        let long = LayoutParams(text: String(repeating: "lorem ipsum dolor ", count: 40_000), width: 50)
        for delay in [0, 0, 1_000_000, 5_000_000] as [UInt64] {
            let slow = Task { try await client.layout(long) }
            if delay > 0 { try await Task.sleep(nanoseconds: delay) }
            slow.cancel()
            let outcome = await slow.result
            guard case .failure(let error) = outcome else { Issue.record("a cancelled layout answered"); continue }
            #expect(error as? LayoutClientError == .cancelled)
        }
        #expect(try await client.ping())
    }

    /// Every params member the library sends reaches the daemon: plugins' detectors,
    /// attachments with a provider named and decorations; measure at many widths; update's
    /// width and paragraph; render's picture options.
    @Test func pluginParamsWidthsUpdatesAndPictures() async throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = LayoutClient(socket: daemon.socketPath)
        var params = LayoutParams(text: "Ping @alice [smile] about https://example.com", width: 400)
        params.detectors = [DetectorRequest(kind: "mention"), DetectorRequest(kind: "url")]
        params.attachments = AttachmentProvidersRequest(providers: [(name: "shortcodes", options: [:])])
        params.decorations = DecorationsRequest()
        let layout = try await client.layout(params, retain: true)
        #expect(layout.regions.map(\.kind).sorted() == ["attachment", "mention", "url"])
        #expect(layout.lines.first?.decorations?.isEmpty == false)
        let handle = try #require(layout.handle)

        let measures = try await client.measure(params, widths: [80, 400])
        #expect(measures.measures.count == 2 && measures.measures[0].lineCount > measures.measures[1].lineCount)
        #expect(measures.measures.allSatisfy { $0.fontFingerprint == measures.fontFingerprint })

        let narrow = try await client.update(handle: handle, width: 80)
        #expect(narrow.diff.reshapedParagraphs == 0 && narrow.layout.lines.count == measures.measures[0].lineCount)
        var style = ParagraphParams()
        style.align = "center"
        let centered = try await client.update(handle: handle, paragraph: style)
        #expect(centered.layout.lines.count == narrow.layout.lines.count && centered.layout.lines[0].x > 0)
        let unwrapped = try await client.update(handle: handle, width: .some(nil))
        #expect(unwrapped.layout.lines.count == 1)
        var hyphenating = LayoutParams(text: "see hyphenation", width: 110, language: "en")
        hyphenating.paragraph.hyphenation = "auto"
        hyphenating.paragraph.hyphenationMinimum = (before: 3, after: 5, word: nil)
        let hyphenated = try await client.layout(hyphenating)
        #expect(hyphenated.lines.map(\.start) == [0, 10] && hyphenated.lines[0].hyphenated, "hyphen-ation, as the minimums allow")

        var picture = RenderParams(handle: handle, format: "svg")
        picture.highlights = [HighlightParams(start: 5, end: 11, state: 1)]
        picture.background = nil
        let svg = try await client.render(picture)
        #expect(svg.format == "svg" && svg.data.contains("<svg"))
        let png = try await client.render(RenderParams(layout: LayoutParams(text: "Hi", width: 100)))
        #expect(png.format == "png" && png.width > 0)
    }

    /// A daemon that does not admit this uid: `.refused` with the daemon's own words.
    @Test func aRefusalIsTyped() async throws {
        let daemon = try Daemon(configText: Daemon.refusingEveryTest)
        defer { daemon.stop() }
        do {
            _ = try await LayoutClient(socket: daemon.socketPath).ping()
            Issue.record("a refused connection answered")
        } catch {
            guard case .refused(_, let message) = error else { Issue.record("\(error)"); return }
            #expect(message.contains("may not use this layoutd"), "\(message)")
        }
    }

    /// After the daemon restarts, a call connects again and is sent again: the caller sees
    /// no error.
    @Test func reconnectsAfterARestart() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var daemon = try Daemon(folder: folder)
        let client = LayoutClient(socket: daemon.socketPath)
        #expect(try await client.ping())
        daemon.stop()
        daemon = try Daemon(folder: folder)
        defer { daemon.stop() }
        #expect(try await client.ping())
    }

    /// A layout the daemon evicted (a store of one) is laid out again when its handle is used.
    @Test func anEvictedLayoutIsLaidOutAgain() async throws {
        let daemon = try Daemon(limits: #"{"retainedLayouts": 1}"#)
        defer { daemon.stop() }
        let client = LayoutClient(socket: daemon.socketPath)
        let first = try #require(try await client.layout(LayoutParams(text: "first layout", width: 200), retain: true).handle)
        let second = try #require(try await client.layout(LayoutParams(text: "second", width: 200), retain: true).handle)
        #expect(first != second)
        #expect(try await client.caret(handle: first, index: 12).x > (try await client.caret(handle: second, index: 6)).x)
        #expect(try await client.rects(handle: first, start: 0, end: 5).count == 1)
    }

    /// A retained layout's handle is the client's: after a restart the client lays the
    /// document out again, with the text and spans its edits left and the width and
    /// paragraph style its updates set, and answers as the first daemon would have.
    @Test func handlesSurviveARestart() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var daemon = try Daemon(folder: folder)
        defer { daemon.stop() }
        let client = LayoutClient(socket: daemon.socketPath)
        let text = "Tap the link, or select text"
        var params = LayoutParams(text: text, width: 120)
        var link = SpanAttributes()
        link.link = "https://x.io"
        params.spans = [SpanParams(start: 8, end: 12, attributes: link)]
        let layout = try await client.layout(params, retain: true)
        let handle = try #require(layout.handle)
        let edited = try await client.update(handle: handle, edits: [.init(start: 0, end: 0, text: "Please ")])
        #expect(edited.layout.handle == handle)
        let rect = try #require(edited.layout.regions.first?.rects.first)
        let before = try await client.hitTest(handle: handle, x: rect.x + 2, y: rect.y + 2)

        daemon.stop()
        daemon = try Daemon(folder: folder)
        let after = try await client.hitTest(handle: handle, x: rect.x + 2, y: rect.y + 2)
        #expect((after.index, after.line) == (before.index, before.line))
        #expect(after.region?.kind == "link" && after.region?.start == 15 && after.region?.end == 19, "the span moved with the edit")

        var style = ParagraphParams()
        style.align = "end"
        style.maxLines = 1
        let resized = try await client.update(handle: handle, width: 90, paragraph: style)
        #expect(resized.diff.reshapedParagraphs == 0 && resized.layout.truncated)
        let caret = try await client.caret(handle: handle, index: 3)
        daemon.stop()
        daemon = try Daemon(folder: folder)
        let again = try await client.caret(handle: handle, index: 3)
        #expect((again.x, again.y, again.line) == (caret.x, caret.y, caret.line))
        var fresh = LayoutParams(text: "Please " + text, width: 90)
        fresh.paragraph = style
        fresh.spans = [SpanParams(start: 15, end: 19, attributes: link)]
        #expect(try await client.update(handle: handle, width: 90).layout.lines == (try await client.layout(fresh)).lines)

        daemon.stop()
        daemon = try Daemon(folder: folder)
        #expect(try await client.release(handle: handle) == false, "the daemon that had it is gone: nothing laid out to be released")
        do {
            _ = try await client.caret(handle: handle, index: 0)
            Issue.record("a released handle answered")
        } catch {
            guard case .server(let code, _, _) = error else { Issue.record("\(error)"); return }
            #expect(code == LayoutClientError.unknownHandle)
        }
    }
}

extension LayoutClientError {
    var isConnectionLost: Bool { if case .connectionLost = self { true } else { false } }
}
