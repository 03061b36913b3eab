// engine-bench — the engine's part of the bench's corpus row, in process: the same paragraphs,
// font and widths as the row's socket requests, laid out by `TextLayoutEngine` directly (no
// JSON, no socket, no service), so the row's time can be told apart into the engine's and the
// transport's; and the same work on two threads at once, for the parallel row. Run by
// scripts/bench.
//
// usage: engine-bench FONTS_CONF CORPUS_JSONL PASSES
// Prints one JSON object: {"engine_us": mean per pass, "min_us": fastest pass,
// "new_words_us": mean pass with the shape cache emptied before it (every word shaped afresh,
// fonts and everything else warm: text never seen), "relayout_us": mean pass laying each
// paragraph out again at a new width from its kept shaping (as a retained layout's `update`
// does), "two_threads_ratio": passes per second on two threads at once against one}.
import Foundation
import LayoutEngine
import LayoutProtocol
import Synchronization

/// A corpus line that is not an object with a "text" string.
struct CorpusLineWithoutText: Error { let line: String }

/// A layout that failed on one of the two threads (its error, as text).
struct LayoutFailed: Error { let message: String }

let arguments = CommandLine.arguments
guard arguments.count == 4, let passes = Int(arguments[3]), passes > 0 else {
    FileHandle.standardError.write(Data("usage: engine-bench FONTS_CONF CORPUS_JSONL PASSES\n".utf8))
    exit(2)
}
do {
    let engine = TextLayoutEngine(fonts: try FontSystem(fontConfigPath: arguments[1]))
    let lines = try String(contentsOfFile: arguments[2], encoding: .utf8).split(separator: "\n")
    let texts: [[UInt16]] = try lines.map { line in
        guard let text = try JSONParser.parse(String(line))["text"]?.stringValue else {
            throw CorpusLineWithoutText(line: String(line.prefix(80)))
        }
        return Array(text.utf16)
    }
    let font = FontDescriptor(family: "Noto Sans", size: 16)
    /// One pass over every paragraph at `width`; its time in microseconds.
    @Sendable func pass(width: Double) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for text in texts { _ = try engine.layout(LayoutRequest(text: text, width: width, font: font)) }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1000
    }
    _ = try pass(width: 360)   // warm, as the row's daemon is
    var times: [Double] = []
    for k in 0..<passes { times.append(try pass(width: 360 + Double(k + 1) * 0.01)) }
    // Text never seen: the same passes with every word shaped afresh.
    var fresh: [Double] = []
    for k in 0..<passes {
        engine.shapeCache.removeAll()
        fresh.append(try pass(width: 360 + Double(k + 1) * 0.02))
    }
    // Two threads, each `passes` passes at widths of its own, against those passes one after
    // the other on one thread just before: the engine's own scaling (the shape cache's
    // locks, memory), without sockets or client processes.
    let clock = { Double(DispatchTime.now().uptimeNanoseconds) / 1000 }
    let alone = clock()
    for k in 0..<(2 * passes) { _ = try pass(width: 361 + Double(k + 1) * 0.01) }
    let oneThread = clock() - alone
    // Kept shaping laid out again (the resize row's engine part): each paragraph laid out
    // once as a retained layout is (geometry and shaping kept), then at new widths from it.
    var kept: [TextLayout] = try texts.map { text in
        var request = LayoutRequest(text: text, width: 360, font: font)
        request.keepsGeometry = true
        request.keepsReusable = true
        return try engine.layout(request)
    }
    var relayouts: [Double] = []
    for k in 0..<passes {
        let start = DispatchTime.now().uptimeNanoseconds
        for i in texts.indices {
            var request = LayoutRequest(text: texts[i], width: 300 + Double(k + 1) * 7.3, font: font)
            request.keepsGeometry = true
            request.keepsReusable = true
            request.previous = kept[i].reusable
            kept[i] = try engine.layout(request)
        }
        relayouts.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
    }
    let failures = Mutex<[String]>([])
    let together = clock()
    DispatchQueue.concurrentPerform(iterations: 2) { thread in
        do {
            for k in 0..<passes { _ = try pass(width: 362 + Double(thread) * 0.5 + Double(k + 1) * 0.01) }
        } catch {
            failures.withLock { $0.append("\(error)") }
        }
    }
    let twoThreads = clock() - together
    if let failure = failures.withLock({ $0.first }) { throw LayoutFailed(message: failure) }
    print(#"{"engine_us": \#(times.reduce(0, +) / Double(passes)), "min_us": \#(times.min() ?? 0), "#
          + #""new_words_us": \#(fresh.reduce(0, +) / Double(passes)), "#
          + #""relayout_us": \#(relayouts.reduce(0, +) / Double(passes)), "#
          + #""two_threads_ratio": \#(oneThread / twoThreads)}"#)
} catch {
    FileHandle.standardError.write(Data("engine-bench: \(error)\n".utf8))
    exit(1)
}
