import Dispatch
import LayoutEngine
import LayoutProtocol
import Synchronization

/// A layout kept for follow-up queries: what was asked, what the engine made of it, and the
/// regions found in it. Immutable once made; shared between threads.
final class RetainedLayout: Sendable {
    let params: LayoutParams
    let built: BuiltRequest
    let layout: TextLayout
    let detail: LayoutDetail
    /// Regions in UTF-16, with their rectangles.
    let regions: [Region]
    /// Estimated memory held, for the store's byte limit, and the part its paragraphs' kept
    /// shaping holds.
    let bytes: Int
    var shapingBytes: Int { layout.shapingBytes }
    /// The fingerprint of the fonts it was laid out with.
    let fontFingerprint: String
    /// Offset mappings for other encodings than the one it was made with, made on first use.
    private let mappings: Mutex<[OffsetEncoding: OffsetMapping]>
    /// Whether it was laid out without runs and positions (`LayoutKeeping.reusable`): queries
    /// read its layout with them, `full`, made on first need.
    let isCompact: Bool
    private let fullLayout = Mutex<RetainedLayout?>(nil)

    struct Region: Sendable {
        var kind: String
        var start: Int
        var end: Int
        var value: JSONValue?
        var rects: [Rect]
        /// False for a disabled link.
        var enabled = true
    }

    init(params: LayoutParams, built: BuiltRequest, layout: TextLayout, detail: LayoutDetail, encoding: OffsetEncoding,
         fontFingerprint: String) {
        self.fontFingerprint = fontFingerprint
        self.params = params
        var built = built
        // The text's grapheme boundaries served the layout; the retained request need not hold them.
        built.request.graphemes = nil
        self.built = built
        self.layout = layout
        self.detail = detail
        var regions: [Region] = []
        for span in built.regionSpans {
            // An inline object's region is the object's own box (the engine's region geometry).
            let objectStyle = span.kind == "attachment" ? built.request.style(at: span.start) : nil
            let rects = layout.regionRects(span.start, span.end, objectStyle: objectStyle)
            if !rects.isEmpty {
                regions.append(Region(kind: span.kind, start: span.start, end: span.end, value: span.value, rects: rects,
                                      enabled: span.enabled))
            }
        }
        if let hidden = layout.hiddenRange, let rect = layout.tokenRect {
            regions.append(Region(kind: "truncation", start: hidden.lowerBound, end: hidden.upperBound,
                                  value: .string(built.token), rects: [rect]))
        }
        regions.sort { ($0.start, $0.end) < ($1.start, $1.end) }
        self.regions = regions
        // Counted by the engine as it made or took over the lines (a pass over every line
        // and run here would cost an update about as much as its layout).
        let runCount = layout.runCount, glyphCount = layout.glyphCount
        // Text, advances and boundaries, lines with their runs and glyphs, regions; the lines
        // twice over when kept for reuse by updates, and the paragraphs' kept shaping.
        let copies = layout.reusable == nil ? 1 : 2
        self.bytes = 256 + built.request.text.count * (16 + 9 * copies)
            + copies * (layout.lines.count * 160 + runCount * 120 + glyphCount * 48) + regions.count * 96
            + layout.shapingBytes
        self.mappings = Mutex([encoding: built.mapping])
        self.isCompact = !built.request.keepsGeometry && layout.reusable != nil
    }

    /// The layout with runs and positions, when it is compact and one was made.
    var full: RetainedLayout? { fullLayout.withLock { $0 } }

    /// Keeps `made` as the full layout unless another was kept first; the one kept, and
    /// whether it is `made`.
    func keepFull(_ made: RetainedLayout) -> (full: RetainedLayout, isNew: Bool) {
        fullLayout.withLock { kept in
            if let kept { return (kept, false) }
            kept = made
            return (made, true)
        }
    }

    /// The memory the full layout adds (its kept shaping is this layout's).
    static func addedBytes(of full: RetainedLayout) -> Int { full.bytes - full.shapingBytes }

    /// Estimated memory held now: with the full layout, when one was made.
    var currentBytes: Int { bytes + (full.map(Self.addedBytes) ?? 0) }

    var text: [UInt16] { built.request.text }

    /// The offset mapping for a connection's encoding.
    func mapping(_ encoding: OffsetEncoding) -> OffsetMapping {
        if let known = mappings.withLock({ $0[encoding] }) { return known }
        let mapping = OffsetMapping(text: text, encoding: encoding.engineEncoding)
        mappings.withLock { $0[encoding] = mapping }
        return mapping
    }
}

/// Retained layouts by handle, bounded by count and bytes; the least recently used goes
/// first. Handles are shared by every connection of the daemon (all of one user; see
/// docs/protocol.md), so a client may lay out on one connection and ask on another.
/// Thread-safe.
final class LayoutStore: Sendable {
    private struct State {
        var entries: [String: (layout: RetainedDocument, tick: UInt64, lock: HandleLock)] = [:]
        var bytes = 0
        /// The part of `bytes` the layouts' kept shaping holds.
        var shapingBytes = 0
        /// The pieces the documents are kept in (a short document is one).
        var pieces = 0
        var tick: UInt64 = 0
        var next: UInt64 = 0
        var evicted: UInt64 = 0
    }

    private let state = Mutex(State())
    let maxCount: Int
    let maxBytes: Int
    /// The daemon's node (a fleet's member: `nodeId`) and this start of it; handles are
    /// `NODE.RUN.N`, so that a handle tells which daemon made it.
    let node: String
    private let run: String
    /// Lookups of handles: found, or unknown (released, evicted, never given).
    let lookups = CacheLookupCounter()

    init(maxCount: Int, maxBytes: Int, node: String) {
        self.maxCount = maxCount
        self.maxBytes = maxBytes
        self.node = node
        var seed = SystemRandomNumberGenerator()
        run = String(seed.next() & 0xFFFFFF, radix: 36)
    }

    /// The -32001 error for a handle this store does not have, saying which daemon made it
    /// when that was another one (another node, or this node before it restarted).
    func unknownHandle(_ handle: String) -> RPCError {
        let parts = handle.split(separator: ".", omittingEmptySubsequences: false)
        let why: String
        if parts.count == 3, parts[0] != node {
            why = "it was made by node \"\(parts[0])\"; this is node \"\(node)\": lay the text out again here with retain: true, or send its requests to node \(parts[0])"
        } else if parts.count == 3, parts[1] != run {
            why = "it was made before this daemon (node \"\(node)\") started again; lay the text out again with retain: true"
        } else {
            why = "it was released or evicted (or never given); lay the text out again with retain: true"
        }
        return RPCError(.unknownHandle, "unknown handle \"\(handle)\": \(why)", data: ["field": "handle"])
    }

    /// Keeps `layout`, evicting the least recently used past the limits; its handle.
    func insert(_ layout: RetainedDocument) -> String {
        state.withLock { s in
            s.next += 1
            let handle = "\(node).\(run).\(String(s.next, radix: 36))"
            s.tick += 1
            s.entries[handle] = (layout, s.tick, HandleLock())
            s.bytes += layout.currentBytes
            s.shapingBytes += layout.shapingBytes
            s.pieces += layout.pieceCount
            evict(&s, keeping: handle)
            return handle
        }
    }

    /// Evicts the least recently used while the store is past its limits, never `handle`.
    private func evict(_ s: inout State, keeping handle: String) {
        while s.entries.count > max(maxCount, 1) || (s.bytes > maxBytes && s.entries.count > 1),
              let oldest = s.entries.min(by: { $0.value.tick < $1.value.tick }), oldest.key != handle {
            s.entries[oldest.key] = nil
            s.bytes -= oldest.value.layout.currentBytes
            s.shapingBytes -= oldest.value.layout.shapingBytes
            s.pieces -= oldest.value.layout.pieceCount
            s.evicted += 1
        }
    }

    /// Counts `bytes` more for `layout` (a compact piece of it got its full layout), when it
    /// is still what `handle` holds; others are evicted if that takes the store past its bound.
    func grew(_ handle: String, _ layout: RetainedDocument, by bytes: Int) {
        state.withLock { s in
            guard let entry = s.entries[handle], entry.layout === layout else { return }
            layout.grownBytes.add(bytes, ordering: .relaxed)
            s.bytes += bytes
            evict(&s, keeping: handle)
        }
    }

    /// The layout for `handle`, marked as just used; nil when unknown or evicted.
    func get(_ handle: String) -> RetainedDocument? {
        let found = state.withLock { s -> RetainedDocument? in
            guard let entry = s.entries[handle] else { return nil }
            s.tick += 1
            s.entries[handle] = (entry.layout, s.tick, entry.lock)
            return entry.layout
        }
        if found == nil { lookups.miss() } else { lookups.hit() }
        return found
    }

    /// Replaces the layout behind `handle` (after an update); false when it is gone.
    func replace(_ handle: String, with layout: RetainedDocument) -> Bool {
        state.withLock { s in
            guard let entry = s.entries[handle] else { return false }
            s.tick += 1
            s.bytes += layout.currentBytes - entry.layout.currentBytes
            s.shapingBytes += layout.shapingBytes - entry.layout.shapingBytes
            s.pieces += layout.pieceCount - entry.layout.pieceCount
            s.entries[handle] = (layout, s.tick, entry.lock)
            return true
        }
    }

    /// Frees `handle`; false when it was not there. (The layout itself is freed off the
    /// request's path and outside the store's lock: `releaseLater`.)
    func release(_ handle: String) -> Bool {
        let removed = state.withLock { s -> RetainedDocument? in
            guard let entry = s.entries.removeValue(forKey: handle) else { return nil }
            s.bytes -= entry.layout.currentBytes
            s.shapingBytes -= entry.layout.shapingBytes
            s.pieces -= entry.layout.pieceCount
            return entry.layout
        }
        guard let removed else { return false }
        Self.releaseLater(consume removed)
        return true
    }

    /// Drops the caller's reference to `layout` on another thread, so that freeing it —
    /// every line's runs and glyphs, one block at a time, as long as laying out part of it
    /// again — does not hold up the answer to the request that let it go (an `update`'s
    /// previous layout, a `release`d one). The caller must hand over its last reference
    /// (`consume`); a query still holding the layout frees it when it finishes, as before.
    static func releaseLater(_ layout: consuming RetainedDocument) {
        let layout = layout
        releases.async { withExtendedLifetime(layout) {} }
    }
    private static let releases = DispatchQueue(label: "layoutd.releases")

    /// Runs `body` holding `handle`'s update lock (updates of one handle from several
    /// connections run one after another, each on the layout the previous one left); nil when
    /// the handle is unknown.
    func whileUpdating<T>(_ handle: String, _ body: () throws(RPCError) -> T) throws(RPCError) -> T? {
        guard let lock = state.withLock({ $0.entries[handle]?.lock }) else { return nil }
        return try lock.run(body)
    }

    /// Count, bytes (and the part kept shaping holds), pieces and evictions so far.
    var counts: (count: Int, bytes: Int, shapingBytes: Int, pieces: Int, evicted: UInt64) {
        state.withLock { ($0.entries.count, $0.bytes, $0.shapingBytes, $0.pieces, $0.evicted) }
    }
}

/// A lock for one handle's updates.
final class HandleLock: Sendable {
    private let mutex = Mutex(())
    func run<T>(_ body: () throws(RPCError) -> T) throws(RPCError) -> T {
        try mutex.withLock { (_) throws(RPCError) -> T in try body() }
    }
}
