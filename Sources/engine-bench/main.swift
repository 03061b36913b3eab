// engine-bench — the engine's part of the bench's corpus row, in process: the same paragraphs,
// font and widths as the row's socket requests, laid out by `TextLayoutEngine` directly (no
// JSON, no socket, no service), so the row's time can be told apart into the engine's and the
// transport's. Run by scripts/bench.
//
// usage: engine-bench FONTS_CONF CORPUS_JSONL PASSES
// Prints one JSON object: {"engine_us": mean per pass, "min_us": fastest pass}.
import Foundation
import LayoutEngine
import LayoutProtocol

/// A corpus line that is not an object with a "text" string.
struct CorpusLineWithoutText: Error { let line: String }

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
    func pass(width: Double) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for text in texts { _ = try engine.layout(LayoutRequest(text: text, width: width, font: font)) }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1000
    }
    _ = try pass(width: 360)   // warm, as the row's daemon is
    var times: [Double] = []
    for k in 0..<passes { times.append(try pass(width: 360 + Double(k + 1) * 0.01)) }
    print(#"{"engine_us": \#(times.reduce(0, +) / Double(passes)), "min_us": \#(times.min() ?? 0)}"#)
} catch {
    FileHandle.standardError.write(Data("engine-bench: \(error)\n".utf8))
    exit(1)
}
