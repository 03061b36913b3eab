import LayoutProtocol

/// The retained layouts a client made, as it remembers them: the params that make each one
/// (the text and spans as its edits left them, the line params as its updates set them) and
/// the daemon's handle for it on the current connection. The caller holds handles of the
/// client's own, so that after a daemon restart, or an eviction, the client lays the
/// document out again and the caller's handle goes on working.
struct RetainedDocuments {
    struct Document {
        var params: LayoutParams
        /// nil: the daemon does not have it (it said so, or it was another connection's).
        var daemonHandle: String?
        var generation: Int
    }

    private var documents: [String: Document] = [:]
    private var handlesMade = 0
    /// Counts connections: a daemon handle means something only on the one it came from.
    private(set) var generation = 0

    mutating func newConnection() { generation += 1 }

    func knows(_ handle: String) -> Bool { documents[handle] != nil }

    /// A new retained layout → the handle the caller gets for it.
    mutating func remember(_ params: LayoutParams, daemonHandle: String) -> String {
        handlesMade += 1
        let handle = "swift\(handlesMade)"
        var kept = params
        kept.retain = true
        documents[handle] = Document(params: kept, daemonHandle: daemonHandle, generation: generation)
        return handle
    }

    /// The daemon's handle for `handle` on this connection; `handle` itself for one the
    /// client did not make; nil when the document must be laid out again first.
    func daemonHandle(for handle: String) -> String? {
        guard let document = documents[handle] else { return handle }
        guard document.generation == generation else { return nil }
        return document.daemonHandle
    }

    /// The params to lay `handle` out again with.
    func params(of handle: String) -> LayoutParams? { documents[handle]?.params }

    mutating func relaid(_ handle: String, daemonHandle: String) {
        documents[handle]?.daemonHandle = daemonHandle
        documents[handle]?.generation = generation
    }

    mutating func lostDaemonHandle(_ handle: String) { documents[handle]?.daemonHandle = nil }

    mutating func forget(_ handle: String) { documents[handle] = nil }

    /// What an answered `update` did to the document: its edits, then its changes.
    mutating func updated(_ handle: String, edits: [LayoutClient.Edit], changes: JSONValue, encoding: OffsetEncoding) {
        guard var params = documents[handle]?.params else { return }
        for edit in edits { params.apply(edit, encoding: encoding) }
        if let read = try? ParamReader(changes), let parsed = try? LayoutChanges(read), let changed = try? parsed.applied(to: params) {
            params = changed
        }
        documents[handle]?.params = params
    }
}

extension LayoutParams {
    /// The params after one edit, as the daemon applies it (docs/protocol.md, `update`): the
    /// text spliced in `encoding`'s code units, spans moved with it.
    mutating func apply(_ edit: LayoutClient.Edit, encoding: OffsetEncoding) {
        let spliced: String? = switch encoding {
        case .utf16: Self.splice(Array(text.utf16), edit, Array(edit.text.utf16)).map { String(decoding: $0, as: UTF16.self) }
        case .utf8: Self.splice(Array(text.utf8), edit, Array(edit.text.utf8)).map { String(decoding: $0, as: UTF8.self) }
        case .utf32: Self.splice(Array(text.unicodeScalars), edit, Array(edit.text.unicodeScalars)).map {
            var scalars = String.UnicodeScalarView()
            scalars.append(contentsOf: $0)
            return String(scalars)
        }
        }
        guard let spliced else { return }
        let inserted = switch encoding {
        case .utf16: edit.text.utf16.count
        case .utf8: edit.text.utf8.count
        case .utf32: edit.text.unicodeScalars.count
        }
        text = spliced
        spans = spans.map { span in
            var span = span
            span.start = Self.moved(span.start, edit, inserted: inserted, isEnd: false)
            span.end = Self.moved(span.end, edit, inserted: inserted, isEnd: span.end > edit.start)
            return span
        }
    }

    /// `units` with `[edit.start, edit.end)` replaced; nil when the range is not in them.
    private static func splice<Unit>(_ units: [Unit], _ edit: LayoutClient.Edit, _ inserted: [Unit]) -> [Unit]? {
        guard edit.start >= 0, edit.start <= edit.end, edit.end <= units.count else { return nil }
        var units = units
        units.replaceSubrange(edit.start..<edit.end, with: inserted)
        return units
    }

    /// Where an offset goes when the edit's range is replaced by `inserted` units: a span's
    /// start stays before an insertion at it, its end moves past one inside or at its end.
    private static func moved(_ offset: Int, _ edit: LayoutClient.Edit, inserted: Int, isEnd: Bool) -> Int {
        if offset < edit.start || (offset == edit.start && !isEnd) { return offset }
        if offset >= edit.end { return offset + inserted - (edit.end - edit.start) }
        return isEnd ? edit.start + inserted : edit.start
    }
}
