import LayoutClient
import LayoutProtocol

// A chat bubble: how tall a message is at one width and at several, where a tap lands, and
// where the caret and the selection go; then the message edited and the bubble narrowed.
let client = LayoutClient()   // $LAYOUTD_SOCKET, else the search order
let text = "Grüße aus Köln! Details: https://example.com/k"
var params = LayoutParams(text: text, width: 160)
params.detectors = [DetectorRequest(kind: "url")]

do {
    let bubble = try await client.measure(params)
    print("measure: \(bubble.lineCount) lines, \(bubble.height) points tall")
    let sizes = try await client.measure(params, widths: [120, 240, 480])
    print("at widths 120, 240, 480:", sizes.measures.map(\.lineCount), "lines")

    let layout = try await client.layout(params, retain: true)
    for line in layout.lines { print("line [\(line.start), \(line.end)) at y \(line.y), width \(line.width)") }
    for region in layout.regions { print("\(region.kind) [\(region.start), \(region.end)) in \(region.rects.count) rects") }

    if let handle = layout.handle {
        let hit = try await client.hitTest(handle: handle, x: 100, y: 30)
        print("tap at (100, 30): index \(hit.index), line \(hit.line), region \(hit.region?.kind ?? "none")")
        let caret = try await client.caret(handle: handle, index: 16)
        print("caret at 16: x \(caret.x), y \(caret.y), line \(caret.line)")
        let selection = try await client.rects(handle: handle, start: 10, end: 30)
        print("selection [10, 30): \(selection.count) rects")

        let edited = try await client.update(handle: handle, edits: [.init(start: 15, end: 15, text: " 🎉")])
        print("after the edit: \(edited.layout.lines.count) lines, changed from line \(edited.diff.firstLine)")
        let narrow = try await client.update(handle: handle, width: 100)
        print("at width 100: \(narrow.layout.lines.count) lines, \(narrow.diff.reshapedParagraphs) paragraphs shaped again")
        try await client.release(handle: handle)
    }

    _ = try await client.layout(LayoutParams(text: text, width: -1))
} catch .server(let code, let message, let field) {
    print("error \(code) in `\(field ?? "?")`: \(message)")
} catch {
    print("layoutd: \(error)")
}
