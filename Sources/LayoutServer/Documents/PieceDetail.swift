import LayoutEngine
import LayoutProtocol

/// A retained document's pieces are laid out compact (lines and kept shaping, no runs or
/// positions) unless their request needs more, so that retaining a long file costs about
/// what laying it out once does. A query that reads runs or positions — a caret, a hit test,
/// rectangles — lays the piece it falls in out in full from its kept shaping the first time,
/// and keeps that layout beside the compact one, its memory counted in the store.
extension LayoutService {
    /// `at` with its piece's full layout: the piece itself when it is not compact.
    /// `handle`: the store's entry holding `doc`, which counts the memory the full layout adds.
    func full(_ at: PieceAt, of doc: RetainedDocument, handle: String?, session: Session) throws(RPCError) -> PieceAt {
        let piece = at.piece
        guard piece.isCompact else { return at }
        if let made = piece.full { return at.with(made) }
        // (A compact piece has no regions: the detectors found nothing in its text.)
        let made = try perform(piece.params, session: session, keeping: .everything, utf16Spans: piece.built.spans,
                               utf16Text: piece.text, previous: piece.layout.reusable,
                               continues: piece.built.request.textContinues, detect: false)
        let kept = piece.keepFull(made)
        if kept.isNew, let handle { store.grew(handle, doc, by: RetainedLayout.addedBytes(of: kept.full)) }
        return at.with(kept.full)
    }
}

extension MethodContext {
    /// `at`, a piece of the document `target` names, with its full layout (see above).
    func full(_ at: PieceAt, of doc: RetainedDocument, target: LayoutTarget) throws(RPCError) -> PieceAt {
        try service.full(at, of: doc, handle: target.handle, session: session)
    }
}

extension LayoutTarget {
    /// The retained layout's handle, when the target is one.
    var handle: String? {
        if case .handle(let handle) = self { return handle }
        return nil
    }
}
