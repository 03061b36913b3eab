/// A font selector's lookups carried from one layout to the next of layouts made one after
/// another on one thread — the pieces of one retained document — so that each piece starts
/// with the faces the pieces before it chose rather than choosing them again. The selector's
/// tables and the face bits are memos (a cluster gets the same face either way), so carrying
/// them changes no result. A layout takes them at its start (`RequestContext.init`) and
/// hands them back at its end; no two layouts hold them at once, hence unchecked `Sendable`.
public final class FontSelectionCarry: @unchecked Sendable {
    private var selector: FontSelector?
    private var faceBits = FaceBits()

    public init() {}

    /// The carried lookups, when they were made over `fonts` for `language`; left empty.
    func take(fonts: FontSystem, language: String) -> (selector: FontSelector, faceBits: FaceBits)? {
        guard let carried = selector, carried.fonts === fonts, carried.language == language else { return nil }
        selector = nil
        var bits = FaceBits()
        swap(&bits, &faceBits)
        return (carried, bits)
    }

    /// Takes `context`'s lookups back, leaving it empty ones (so that nothing else holding
    /// the context shares the tables the next layout grows).
    func keep(from context: inout RequestContext) {
        var kept = FontSelector(fonts: context.selector.fonts, language: context.selector.language)
        swap(&kept, &context.selector)
        kept.previousFace = nil
        selector = kept
        faceBits = FaceBits()
        swap(&faceBits, &context.faceBits)
    }
}
