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
        let slow = Task { try await client.layout(LayoutParams(text: String(repeating: "lorem ipsum dolor ", count: 40_000), width: 50)) }
        try await Task.sleep(nanoseconds: 5_000_000)
        slow.cancel()
        let outcome = await slow.result
        if case .failure(let error) = outcome { #expect(error as? LayoutClientError == .cancelled) }
        #expect(try await client.ping())
    }

    /// After the daemon restarts, the next call connects again.
    @Test func reconnectsAfterARestart() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var daemon = try Daemon(folder: folder)
        let client = LayoutClient(socket: daemon.socketPath)
        #expect(try await client.ping())
        daemon.stop()
        daemon = try Daemon(folder: folder)
        defer { daemon.stop() }
        do { _ = try await client.ping() } catch { #expect(error.isConnectionLost) }
        #expect(try await client.ping())
    }
}

extension LayoutClientError {
    var isConnectionLost: Bool { if case .connectionLost = self { true } else { false } }
}
