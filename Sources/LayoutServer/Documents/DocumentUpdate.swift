import LayoutEngine
import LayoutProtocol

/// A document after an `update`: the new one, the lines that changed, the ranges inserted
/// (document UTF-16), and how many paragraphs were shaped again.
struct UpdatedDocument {
    var doc: RetainedDocument
    var diff: LineDiff
    var inserted: [Range<Int>]
    var reshaped: Int
}

extension LayoutService {
    /// `p`'s edits and changes applied to `old`. A pieced document with its params unchanged
    /// lays out only the pieces the edits touch; other updates lay the text out again
    /// (each paragraph taking over what it can of the layout before). Edits with new params
    /// are applied first under the old ones, so that the new layout finds each old paragraph
    /// at the offset it has in the edited text.
    func updated(_ old: RetainedDocument, _ p: UpdateParams, session: Session) throws(RPCError) -> UpdatedDocument {
        let params = try p.changes.applied(to: old.params)
        if p.changes.isEmpty {
            return old.isPieced && RetainedDocument.mayBePieced(params)
                ? try editedPieces(old, p.edits, session: session)
                : try relaid(old, edits: p.edits, params: params, session: session)
        }
        guard !p.edits.isEmpty else { return try relaid(old, edits: [], params: params, session: session) }
        var editsAlone = p
        editsAlone.changes = LayoutChanges()
        let edited = try updated(old, editsAlone, session: session)
        let new = try relaid(edited.doc, edits: [], params: params, session: session).doc
        let diff = LineDiff(old.boxes(0..<old.pieceCount), new.boxes(0..<new.pieceCount),
                            textDelta: new.utf16Length - old.utf16Length, knownSame: 0)
        return UpdatedDocument(doc: new, diff: diff, inserted: edited.inserted,
                               reshaped: edited.reshaped + new.reshapedParagraphs)
    }

    /// `old`'s text with `edits` laid out again under `params`, pieced or whole as they and
    /// its length allow.
    private func relaid(_ old: RetainedDocument, edits given: [UpdateParams.Edit], params: LayoutParams,
                        session: Session) throws(RPCError) -> UpdatedDocument {
        let stop = stopCheck(session)
        let whole = old.isPieced ? try old.joined(stop: stop) : (text: old.first.text, spans: old.first.built.spans)
        var edits = TextEdits(text: whole.text, spans: whole.spans)
        try edits.apply(given, encoding: session.offsetEncoding, maxTextLength: configuration.maxDocumentLength, stop: stop)
        let new: RetainedDocument
        if RetainedDocument.mayBePieced(params), edits.text.count >= DocumentCuts.piecedLength {
            new = try piecedDocument(params, text: edits.text, spans: edits.spans, previous: given.isEmpty ? old : nil,
                                     session: session)
        } else {
            var whole = params
            whole.text = ""
            whole.spans = []
            whole.viewport = nil
            new = RetainedDocument(whole: try perform(whole, session: session, keeping: .everything, utf16Spans: edits.spans,
                                                      utf16Text: edits.text, previous: old.reusableWhole()))
        }
        let knownSame = old.isPieced || new.isPieced ? 0 : new.first.layout.unchangedLeadingLines
        let diff = LineDiff(old.boxes(0..<old.pieceCount), new.boxes(0..<new.pieceCount),
                            textDelta: new.utf16Length - old.utf16Length, knownSame: knownSame)
        return UpdatedDocument(doc: new, diff: diff, inserted: edits.inserted, reshaped: new.reshapedParagraphs)
    }

    /// Edits applied to a pieced document piece by piece (`DocumentEditor`).
    private func editedPieces(_ old: RetainedDocument, _ edits: [UpdateParams.Edit],
                              session: Session) throws(RPCError) -> UpdatedDocument {
        var editor = DocumentEditor(old, service: self, session: session)
        let stop = stopCheck(session)
        for (i, edit) in edits.enumerated() {
            try checkStop(stop)
            try editor.apply(edit, field: "edits[\(i)]", maxLength: configuration.maxDocumentLength)
        }
        try editor.flush()
        let new = RetainedDocument(tree: editor.tree, params: old.params, detail: old.detail, isPieced: true,
                                   fontFingerprint: engine.fonts.fingerprint, bytes: editor.bytes,
                                   shapingBytes: editor.shapingBytes, reused: editor.reusedParagraphs(),
                                   reshaped: editor.laid.reshaped, warnings: editor.laid.warnings)
        guard let changed = editor.changed else {
            return UpdatedDocument(doc: new, diff: LineDiff(first: new.lineCount, removed: 0, added: 0), inserted: [],
                                   reshaped: new.reshapedParagraphs)
        }
        let before = old.boxes(changed.lowerBound..<(old.pieceCount - (new.pieceCount - changed.upperBound)))
        let after = new.boxes(changed)
        let textDelta = new.utf16Length - old.utf16Length
        let local = LineDiff(before, after, textDelta: textDelta)
        // Nothing changed at all: as a diff over the whole document finds, no line differs.
        let same = local.removed == 0 && local.added == 0 && textDelta == 0 && before.last?.y == after.last?.y
        let first = same ? new.lineCount : new.piece(at: changed.lowerBound).start.lines + local.first
        return UpdatedDocument(doc: new, diff: LineDiff(first: first, removed: local.removed, added: local.added),
                               inserted: editor.inserted, reshaped: new.reshapedParagraphs)
    }
}

extension RetainedDocument {
    /// What a layout of the whole text can take over: the one piece's, or every piece's
    /// shaping.
    func reusableWhole() -> ReusableLayout? {
        guard isPieced else { return first.layout.reusable }
        var parts: [(layout: ReusableLayout, start: Int)] = []
        for i in 0..<pieceCount {
            let at = piece(at: i)
            if let kept = at.piece.layout.reusable { parts.append((kept, at.start.utf16)) }
        }
        return ReusableLayout.joined(parts)
    }

    /// The lines of `pieces`, in the document's coordinates (offsets UTF-16), without runs.
    func boxes(_ pieces: Range<Int>) -> [LineBox] {
        var boxes: [LineBox] = []
        for i in pieces {
            let at = piece(at: i)
            for line in at.piece.layout.lines {
                var box = line
                box.runs = []
                box.start += at.start.utf16
                box.end += at.start.utf16
                box.y += at.top
                box.baseline += at.top
                boxes.append(box)
            }
        }
        return boxes
    }
}
