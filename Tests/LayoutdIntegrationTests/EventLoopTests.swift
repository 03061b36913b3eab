import Foundation
import LayoutProtocol
import LayoutTransport
import Testing

/// A number from /proc/PID/status ("Threads", "VmRSS" in kB).
func procStatus(_ pid: Int32, _ key: String) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix("\(key):") {
        return Int(line.dropFirst(key.count + 1).split(separator: " ").first ?? "")
    }
    return nil
}

/// What `stats` says of the event loops: requests answered on a loop, open connections per
/// loop, connections moved between loops (-1 for a number missing).
struct LoopStats {
    var onLoop: Double
    var perLoop: [Int]
    var moved: Double
}

/// `stats` asked by `client`, the loops' part of it.
func loopStats(_ client: Client) throws -> LoopStats {
    let s = try client.result("stats")
    return LoopStats(onLoop: s["requests"]?["onLoop"]?.doubleValue ?? -1,
                     perLoop: (s["connections"]?["perLoop"]?.arrayValue ?? []).compactMap(\.intValue),
                     moved: s["connections"]?["moved"]?.doubleValue ?? -1)
}

/// Three clients on a daemon of two event loops, two of them sharing a loop: `sharing` (the
/// pair) and `other` (alone on the other loop). Which loop a connection lands on depends on
/// the connections open when it is accepted (the daemon's readiness probe may still be), so
/// each is told from `stats` as it connects.
func threeClientsOnTwoLoops(_ daemon: Daemon) throws -> (sharing: [Client], other: Client) {
    var clients: [(Client, Int)] = []
    var perLoop = [0, 0]
    for _ in 0..<3 {
        let client = try daemon.connect()
        var now = perLoop
        for _ in 0..<200 {
            now = try loopStats(client).perLoop
            if now.count == 2, now.reduce(0, +) == clients.count + 1 { break }
            usleep(10_000)
        }
        let loop = try #require((0..<2).first { now[$0] > perLoop[$0] }, "where the connection went: \(perLoop) → \(now)")
        clients.append((client, loop))
        perLoop = now
    }
    let shared = try #require((0..<2).first { loop in clients.filter { $0.1 == loop }.count == 2 }, "loops of the clients: \(clients.map(\.1))")
    return (clients.filter { $0.1 == shared }.map(\.0), try #require(clients.first { $0.1 != shared }?.0))
}

@Suite("A few event loops for every connection", .serialized)
struct EventLoopTests {
    /// Connections cost no thread each: 300 open, each answered, spread evenly over the
    /// event loops, and the daemon's threads stay those of the loops, the worker pool and a
    /// few helpers.
    @Test func manyConnectionsShareTheLoops() throws {
        let daemon = try Daemon(limits: #"{"maxConnections": 1000, "maxConnectionsPerUid": 1000, "eventLoops": 3}"#)
        defer { daemon.stop() }
        let before = procStatus(daemon.process.processIdentifier, "Threads") ?? 0
        var clients: [Client] = []
        for i in 0..<300 {
            let client = try daemon.connect()
            try client.connection.send(RPCRequest(id: .number(Double(i)), method: "ping", params: nil).json)
            clients.append(client)
        }
        for (i, client) in clients.enumerated() {
            let reply = try #require(try client.connection.receive())
            #expect(reply["id"] == .number(Double(i)))
        }
        let stats = try clients[0].result("stats")
        #expect(stats["connections"]?["open"] == 300)
        let perLoop = (stats["connections"]?["perLoop"]?.arrayValue ?? []).compactMap(\.intValue)
        #expect(perLoop.count == 3 && perLoop.reduce(0, +) == 300 && perLoop.max()! - perLoop.min()! <= 1,
                "connections per loop: \(perLoop)")
        let threads = procStatus(daemon.process.processIdentifier, "Threads") ?? 0
        #expect(threads < before + 40, "\(threads) threads with 300 connections (\(before) with none)")
        for client in clients { client.connection.close() }
    }

    /// Short requests of quick methods from a client asking alone (on its loop; here there is
    /// one loop) are answered on the loop thread (counted in `stats`), with the same answers
    /// as from a worker; while two clients of the loop ask in turn, none is, so they are
    /// served in parallel by the workers; nor are methods whose work is not bounded by their
    /// message.
    @Test func shortRequestsOfAClientAskingAloneAreAnsweredOnTheLoop() throws {
        let daemon = try Daemon(limits: #"{"eventLoops": 1}"#)
        defer { daemon.stop() }
        let a = try daemon.connect(), b = try daemon.connect()
        func onLoop(_ client: Client) throws -> Double {
            try client.result("stats")["requests"]?["onLoop"]?.doubleValue ?? -1
        }
        let params: JSONValue = ["text": "A short paragraph, answered quickly.", "width": 120]
        let expected = try b.result("layout", params)
        let before = try onLoop(a)
        #expect(before >= 0)
        for _ in 0..<40 {
            #expect(try a.result("layout", params) == expected)
            usleep(3_000)   // 40 × 3 ms: past the 50 ms a client must have asked alone
        }
        let alone = try onLoop(a)
        #expect(alone - before >= 20, "\(alone - before) of 40 answered on the loop")
        for i in 0..<40 {
            #expect(try (i % 2 == 0 ? a : b).result("layout", params) == expected)
        }
        let inTurn = try onLoop(b)
        #expect(inTurn - alone <= 1, "\(inTurn - alone) answered on the loop while two clients asked in turn")
        // Methods whose work is not bounded by their message (`stats` here, `render`, `rects`,
        // `reload` …) always go to the workers, even from a client asking alone.
        usleep(60_000)
        for _ in 0..<10 { _ = try onLoop(b) }
        #expect(try onLoop(b) == inTurn, "stats requests are not answered on the loop")
    }

    /// A new connection on a loop no other connection asked for 50 ms is alone on it from
    /// its first request: answered on the loop (a short-lived client, as `layoutctl`, never
    /// lasts the 50 ms a client once had to ask alone first); one asking right after another
    /// connection of the loop is not.
    @Test func aNewClientOnAQuietLoopIsAnsweredThereFromItsFirstRequest() throws {
        let daemon = try Daemon(limits: #"{"eventLoops": 1}"#)
        defer { daemon.stop() }
        let watcher = try daemon.connect()
        func onLoop() throws -> Double { try watcher.result("stats")["requests"]?["onLoop"]?.doubleValue ?? -1 }
        let params: JSONValue = ["text": "A short paragraph, answered quickly.", "width": 120]
        let before = try onLoop()
        usleep(60_000)   // the watcher's `stats` was the loop's last request: 60 ms ago
        let a = try daemon.connect()
        _ = try a.result("layout", params)
        let first = try onLoop()
        #expect(first - before == 1, "the first request of a new client on a quiet loop: \(first - before) answered on the loop")
        // Right after the watcher asked: not alone, so to a worker.
        let b = try daemon.connect()
        _ = try b.result("layout", params)
        #expect(try onLoop() == first, "a new client's request right after another client's went to a worker")
    }

    /// Connections go to the loop with the fewest, so with two loops and three clients, two
    /// share a loop and one is alone on the other. Two clients on different loops asking in
    /// turn are each alone on theirs and answered there, in parallel, with no worker; while
    /// all three ask in turn, the two sharing a loop go to the workers (the daemon otherwise
    /// idle: a core is free for them) while the lone one is still answered on its loop.
    @Test func clientsOnLoopsOfTheirOwnAreAnsweredThere() throws {
        let daemon = try Daemon(limits: #"{"eventLoops": 2}"#)
        defer { daemon.stop() }
        let (pair, lone) = try threeClientsOnTwoLoops(daemon)
        let params: JSONValue = ["text": "A short paragraph, answered quickly.", "width": 120]
        let expected = try lone.result("layout", params)
        usleep(60_000)   // the pair's `stats` while connecting: 60 ms ago
        let before = try loopStats(lone)
        #expect(before.perLoop.sorted() == [1, 2], "connections per loop: \(before.perLoop)")
        for i in 0..<40 {
            #expect(try (i % 2 == 0 ? pair[0] : lone).result("layout", params) == expected)
            usleep(3_000)
        }
        let inTurn = try loopStats(lone)
        #expect(inTurn.onLoop - before.onLoop >= 24, "\(inTurn.onLoop - before.onLoop) of 40 answered on the loops")
        // In the order pair, lone: right after the lone client's answer its loop counts as
        // busy a moment, and a request of the pair then would be answered on their loop, as
        // when other cores are busy (see the next test); after the 3 ms pause it does not.
        for _ in 0..<20 {
            for client in pair + [lone] { #expect(try client.result("layout", params) == expected) }
            usleep(3_000)
        }
        let shared = try loopStats(lone)
        let answered = shared.onLoop - inTurn.onLoop
        #expect(answered >= 14 && answered <= 22, "\(answered) of 60 answered on the loops (20 of them the lone client's)")
        #expect(shared.perLoop == before.perLoop, "connections per loop: \(shared.perLoop)")
    }

    /// Two clients sharing a loop and asking in turn, while every other core has work (here
    /// the other loop's client keeps long requests running on the workers), are answered by
    /// their loop itself: a worker would find no core free, so the hand-over would buy
    /// nothing. (With the other cores idle they go to the workers: the test above.)
    @Test func clientsSharingALoopAreAnsweredThereWhileTheOtherCoresAreBusy() throws {
        // (The busy client reads its answers only at the end: on a loaded machine, with a
        // debug build, that can be more than the default 30 s after its first, past which
        // a peer that does not read is dropped.)
        let daemon = try Daemon(limits: #"{"eventLoops": 2, "sendTimeoutSeconds": 600}"#)
        defer { daemon.stop() }
        let (pair, busy) = try threeClientsOnTwoLoops(daemon)
        let (a, c) = (pair[0], pair[1])
        let params: JSONValue = ["text": "A short paragraph, answered quickly.", "width": 120]
        let expected = try a.result("layout", params)
        let perLoop = try loopStats(a).perLoop
        // Long requests (over the 16 KiB a loop answers itself), sent without waiting, more
        // of them as the test goes on: the busy client's loop keeps requests on the workers.
        // Each measures at 16 widths, so that it holds a worker long while its answer stays
        // small (the busy client reads its answers only at the end: long answers would fill
        // the socket and stop the daemon reading its requests).
        let long = String(repeating: "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", count: 400)
        var sent = 0
        func sendLong(_ count: Int) throws {
            for _ in 0..<count {
                let widths = JSONValue.array((0..<16).map { .number(Double(200 + sent * 16 + $0)) })
                try busy.connection.send(RPCRequest(id: .number(Double(sent)), method: "measure",
                                                    params: ["text": .string(long), "widths": widths]).json)
                sent += 1
            }
        }
        try sendLong(20)
        let before = try loopStats(a)
        for i in 0..<40 {
            if i % 10 == 9 { try sendLong(10) }
            #expect(try (i % 2 == 0 ? a : c).result("layout", params) == expected)
        }
        let after = try loopStats(a)
        #expect(after.onLoop - before.onLoop >= 30, "\(after.onLoop - before.onLoop) of 40 answered on their loop")
        #expect(after.perLoop == perLoop && after.moved == 0, "connections stay where they are: \(after.perLoop), moved \(after.moved)")
        for _ in 0..<sent {
            let reply = try #require(try busy.connection.receive())
            #expect(reply["result"]?["measures"]?.arrayValue?.count == 16)
        }
    }

    /// Busy clients are spread over the loops whichever loop accepted them: two clients
    /// asking in turn on one loop while the other loop's client is quiet, one of them moves
    /// to the quiet loop (`connections.moved` in `stats`), where it is then answered
    /// alone, on the loop; every answer the same, none lost.
    @Test func busyClientsSharingALoopAreSpreadOverTheLoops() throws {
        let daemon = try Daemon(limits: #"{"eventLoops": 2}"#)
        defer { daemon.stop() }
        let (pair, quiet) = try threeClientsOnTwoLoops(daemon)
        let (a, c) = (pair[0], pair[1])
        let params: JSONValue = ["text": "A short paragraph, answered quickly.", "width": 120]
        let expected = try a.result("layout", params)
        var now = try loopStats(a)
        let initial = now.perLoop
        #expect(initial.sorted() == [1, 2])
        for round in 0..<600 {   // (a move comes within a few sweeps; this is a generous bound)
            for client in [a, c] { #expect(try client.result("layout", params) == expected) }
            usleep(2_000)
            if round % 20 == 19 {
                now = try loopStats(a)
                if now.moved >= 1 { break }
            }
        }
        #expect(now.moved == 1 && now.perLoop == Array(initial.reversed()), "moved \(now.moved); connections per loop \(now.perLoop)")
        // Each alone on its loop now: answered there (a `stats` in between goes to a worker).
        usleep(60_000)
        for _ in 0..<20 {
            for client in [a, c] { #expect(try client.result("layout", params) == expected) }
            usleep(3_000)
        }
        let later = try loopStats(a)
        #expect(later.onLoop - now.onLoop >= 30, "\(later.onLoop - now.onLoop) of 40 answered on the loops")
        #expect(later.moved == 1, "no more moves once spread: \(later.moved)")
        #expect(try quiet.result("ping")["pong"] == true)
    }

    /// Workers wake the loop only when an answer leaves it something to do. Two such cases,
    /// on a raw socket: requests pipelined past the pending limit (reading paused, the rest
    /// waiting in the framer) are all answered, and a client that shuts down its sending
    /// side gets every answer and then the end of the stream — also when its requests
    /// finish before the loop reads the end (messages still framed then were once dropped
    /// with the connection).
    @Test func pipelinedPastThePendingLimitThenHalfClosedGetsEveryAnswerAndTheEnd() throws {
        let daemon = try Daemon(limits: #"{"maxPendingPerConnection": 2}"#)
        defer { daemon.stop() }
        for round in 0..<10 {
            let connection = try UnixSocket.connect(path: daemon.socketPath)
            let fd = connection.rawValue
            var wait = timeval(tv_sec: 20, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            let count = 40
            var batch: [UInt8] = []
            for i in 0..<count {
                batch += JSONWriter.serialize(RPCRequest(id: .number(Double(i)), method: "layout",
                                                         params: ["text": .string("round \(round) request \(i)"), "width": 100]).json)
                batch.append(0x0A)
            }
            let sent = batch.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            #expect(sent == batch.count)
            shutdown(fd, Int32(SHUT_WR))
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var ended = false
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 { received += buffer[0..<n]; continue }
                ended = n == 0   // -1: the receive timed out
                break
            }
            let ids = received.split(separator: 0x0A).compactMap { try? JSONParser.parse($0)["id"]?.intValue }
            #expect(Set(ids) == Set(0..<count), "round \(round): \(ids.count) of \(count) answered")
            #expect(ended, "round \(round): the daemon closes the connection after the last answer")
        }
    }

    /// A client that pipelines requests and never reads is dropped once its answers pass the
    /// output limit or stall past the send deadline; memory stays bounded, and a client
    /// beside it is served all along.
    @Test func aClientThatNeverReadsIsDroppedAndOthersAreServed() throws {
        let daemon = try Daemon(limits: #"{"maxOutputBytes": 1048576, "sendTimeoutSeconds": 2}"#)
        defer { daemon.stop() }
        let pid = daemon.process.processIdentifier
        let greedy = try daemon.connect()
        let polite = try daemon.connect()
        let text = String(repeating: "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", count: 40)
        // Each answer is about 100 KB (glyph detail); 400 of them would be 40 MB unread.
        let request = JSONWriter.serialize(RPCRequest(id: .number(1), method: "layout",
                                                      params: ["text": .string(text), "width": 300, "detail": "glyphs"]).json)
        var sent = 0
        var sendFailed = false
        for _ in 0..<400 {
            do { try greedy.connection.send(line: request); sent += 1 } catch { sendFailed = true; break }
            if sent % 50 == 0 { #expect(try polite.result("ping")["pong"] == true) }
        }
        // The greedy client is dropped within the send deadline (or at the output limit).
        var open = 2.0
        for _ in 0..<100 {
            open = try polite.result("stats")["connections"]?["open"]?.doubleValue ?? -1
            if open == 1 { break }
            usleep(100_000)
        }
        #expect(open == 1, "the client that never reads is dropped (sent \(sent), send failed: \(sendFailed))")
        let rssMB = (procStatus(pid, "VmRSS") ?? 0) / 1024
        #expect(rssMB < 400, "resident memory \(rssMB) MB")
        #expect(daemon.log.contains("dropping a connection"))
        #expect(try polite.result("layout", ["text": "still here"])["lines"]?.arrayValue?.count == 1)
    }

    /// A long `update` on one connection holds up that connection's later messages (edits
    /// apply in order) but not other connections: they are served by the same loop meanwhile.
    @Test func aLongUpdateDoesNotHoldUpOtherConnections() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let editor = try daemon.connect()
        let other = try daemon.connect()
        let text = String(repeating: "lorem ipsum dolor sit amet ", count: 40_000)
        let handle = try #require(editor.result("layout", ["text": .string(text), "width": 300, "retain": true])["handle"]?.stringValue)
        try editor.connection.send(RPCRequest(id: .number(7), method: "update", params: [
            "handle": .string(handle), "edits": [["start": 0, "end": 5, "text": "LOREM"]]]).json)
        try editor.connection.send(RPCRequest(id: .number(8), method: "caret", params: ["handle": .string(handle), "index": 0]).json)
        // While the 1 MB paragraph is laid out again, the other connection is answered.
        #expect(try other.result("ping")["pong"] == true)
        let stats = try other.result("stats")
        #expect((stats["requests"]?["byMethod"]?["update"]?.doubleValue ?? 0) == 0, "the update is still running")
        // The editor's answers come in order: the update, then the caret on the edited text.
        let first = try #require(try editor.connection.receive())
        let second = try #require(try editor.connection.receive())
        #expect(first["id"] == 7 && first["result"]?["diff"] != nil)
        #expect(second["id"] == 8 && second["result"] != nil)
    }
}
