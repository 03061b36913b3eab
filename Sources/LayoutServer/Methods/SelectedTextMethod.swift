import LayoutProtocol

/// `selectedText`: the text of a selection over several layouts, their pieces joined by
/// `separator`. Not quick: the answer grows with the range asked for.
enum SelectedTextMethod: Method {
    static let name = "selectedText"
    static let order = MethodOrder.concurrent(quick: false)

    static func decode(_ params: JSONValue?) throws(RPCError) -> SelectedTextParams { try SelectedTextParams(json: params) }

    static func run(_ p: SelectedTextParams, in context: MethodContext) throws(RPCError) -> TextResult {
        let parts = try context.parts(of: p.selection)
        // Every UTF-16 unit selected is at least one byte of the answer.
        try context.service.checkOutputEstimate(parts.reduce(0) { $0 + $1.end - $1.start + p.separator.utf8.count })
        let stop = context.service.stopCheck(context.session)
        var text = ""
        for (i, part) in parts.enumerated() {
            try context.service.checkStop(stop)
            if i > 0 { text += p.separator }
            text += String(decoding: part.doc.text(part.start, part.end), as: UTF16.self)
        }
        return TextResult(text: text)
    }
}
