import LayoutProtocol

/// One retained layout's part of a selection over several: the UTF-16 range selected in it,
/// and where the layout is drawn.
struct SelectionPart {
    let index: Int
    let doc: RetainedDocument
    let handle: String
    let origin: (x: Double, y: Double)
    let start: Int
    let end: Int
}

extension MethodContext {
    /// The parts of `selection`, in the order of `layouts`: from its start to its end (which
    /// may be given in either order), every layout between them selected whole.
    func parts(of selection: SelectionParams) throws(RPCError) -> [SelectionPart] {
        var layouts: [RetainedDocument] = []
        layouts.reserveCapacity(selection.layouts.count)
        for layout in selection.layouts { layouts.append(try retained(layout.handle)) }
        var start = (selection.start.layout, try utf16Offset(selection.start.index, in: layouts[selection.start.layout]))
        var end = (selection.end.layout, try utf16Offset(selection.end.index, in: layouts[selection.end.layout]))
        if end < start { swap(&start, &end) }
        return (start.0...end.0).map { i in
            let doc = layouts[i], origin = selection.layouts[i]
            return SelectionPart(index: i, doc: doc, handle: origin.handle, origin: (origin.x, origin.y),
                                 start: i == start.0 ? start.1 : 0, end: i == end.0 ? end.1 : doc.utf16Length)
        }
    }
}
