import Synchronization

/// A font selector's lookups carried from one layout to the next — the pieces of one
/// retained document, or one connection's measures of message after message in one style —
/// so that each layout starts with the faces the ones before it chose rather than choosing
/// them again. The selector's tables and the face bits are memos (a cluster gets the same
/// face either way), so carrying them changes no result. A layout takes them at its start
/// (`RequestContext.init`) and hands them back at its end; a layout that starts while
/// another holds them starts with empty ones.
public final class FontSelectionCarry: Sendable {
    private struct Carried: ~Copyable {
        var selector: FontSelector?
        var faceBits = FaceBits()
    }

    private let carried = Mutex(Carried())

    public init() {}

    /// Moves the carried lookups into `selector` and `faceBits` when they were made over
    /// `fonts` for `language`, leaving none carried; else changes nothing. (Moved with `swap`:
    /// a selector is a large value, and copying it would count every table's reference up
    /// and down again.)
    func take(fonts: FontSystem, language: String, selector: inout FontSelector?, faceBits: inout FaceBits) {
        carried.withLock { carried in
            guard carried.selector?.fonts === fonts, carried.selector?.language == language else { return }
            swap(&selector, &carried.selector)
            swap(&faceBits, &carried.faceBits)
        }
    }

    /// Takes `context`'s lookups back, leaving it empty ones (so that nothing else holding
    /// the context shares the tables the next layout grows).
    func keep(from context: inout RequestContext) {
        var selector: FontSelector? = FontSelector(fonts: context.selector.fonts, language: context.selector.language)
        swap(&selector!, &context.selector)
        selector!.previousFace = nil
        var bits = FaceBits()
        swap(&bits, &context.faceBits)
        carried.withLock { carried in
            swap(&carried.selector, &selector)
            swap(&carried.faceBits, &bits)
        }
        // (`selector` and `bits` now hold what was replaced, released here: after the lock.)
    }
}
