/// Where a layout leaves its working data — each paragraph's shaped text, advances and break
/// finder, the request's font and shaping caches — instead of freeing it as it finishes, so
/// that its caller can free it later, off the path of the answer: the daemon frees it after
/// the answer is written, while the client reads it. (Freeing a paragraph's arrays and
/// objects is a share of a layout's time worth taking off that path.)
///
/// Bounded: it keeps the work of at most `maxUnits` UTF-16 units of text (a few megabytes)
/// and of at most `maxLayouts` layouts (a batch runs many on one request); past that, a
/// layout frees as it goes, as without it. It holds each layout's text along with its work
/// (the shaped paragraphs point into it). Ownership: whatever it keeps is freed when it is
/// (its last reference released) or on `releaseAll`. Used by one request at a time — filled
/// on the thread that runs the layout, then released by the caller once that is done —
/// hence unchecked `Sendable`.
public final class DeferredRelease: @unchecked Sendable {
    /// Most text, in UTF-16 units, whose working data is kept.
    public static let maxUnits = 1 << 16
    /// Most layouts whose per-request state is kept.
    public static let maxLayouts = 8
    private var texts: [[UInt16]] = []
    private var paragraphs: [ShapedParagraph] = []
    private var contexts: [RequestContext] = []
    /// Whatever else the caller leaves here (a server: the layouts it answered with).
    private var objects: [AnyObject] = []
    private var units = 0

    public init() {}

    /// Keeps `object` (at most `maxLayouts` of them; past that it is freed as usual): what a
    /// caller made from a layout, to be freed with the rest.
    public func keep(_ object: AnyObject) {
        if objects.count < Self.maxLayouts { objects.append(object) }
    }

    /// Holds the text of a layout about to start, if fewer than `maxLayouts` are held; only
    /// then may the layout leave anything here (its shaped paragraphs point into the text).
    func hold(_ text: [UInt16]) -> Bool {
        guard texts.count < Self.maxLayouts else { return false }
        texts.append(text)
        return true
    }

    /// Keeps `p` if it fits in what is left of `maxUnits` (else it is freed as usual).
    func keep(_ p: ShapedParagraph) {
        guard units + p.count <= Self.maxUnits else { return }
        units += p.count
        paragraphs.append(p)
    }

    /// Keeps a finished layout's per-request state, for text as short as `maxUnits` (it
    /// holds the request, and with it the text).
    func keep(_ context: RequestContext, textLength: Int) {
        guard textLength <= Self.maxUnits else { return }
        contexts.append(context)
    }

    /// How many paragraphs (of how many units in all), per-request states and texts are kept.
    var counts: (paragraphs: Int, units: Int, contexts: Int, texts: Int) {
        (paragraphs.count, units, contexts.count, texts.count)
    }

    /// Frees everything kept now.
    public func releaseAll() {
        paragraphs = []
        contexts = []
        objects = []
        texts = []
        units = 0
    }
}
