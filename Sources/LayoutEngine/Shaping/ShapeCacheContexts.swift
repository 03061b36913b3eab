extension RequestContext {
    /// The shape cache's number for a run's context (face, style, script, direction), asked of
    /// the cache once per request: the last few are compared in a small list before the
    /// request's table (runs alternate between a handful of contexts).
    mutating func contextNumber(face: FontFace, styleIndex: Int, script: Script, rtl: Bool,
                                        variations: [FontVariation], cache: ShapeCache) -> Int {
        let memoKey = ContextMemoKey(face: face, style: styleIndex, script: script.code, rtl: rtl)
        for entry in recentContexts where entry.key == memoKey { return entry.number }
        let context: Int
        if !contextMemo.isEmpty, let known = contextMemo[memoKey] {
            context = known
        } else {
            let style = request.styles[styleIndex]
            context = cache.contextNumber(ShapeCache.Context(
                face: face.identity, variations: variations, size: style.font.size, features: style.font.features,
                spaced: style.letterSpacing != 0, script: script.code, rtl: rtl, language: request.language))
        }
        if recentContexts.count < 8 {
            recentContexts.append((memoKey, context))
        } else {
            // (The one it replaces is kept in the table: a request seldom has more than eight.)
            let replaced = recentContexts[nextRecentContext]
            contextMemo[replaced.key] = replaced.number
            recentContexts[nextRecentContext] = (memoKey, context)
            nextRecentContext = (nextRecentContext + 1) & 7
        }
        return context
    }
}

/// What decides a run's shape cache context within one request (the request's language is
/// fixed; the face object and style fix face, axes, size, features and spacing). Holds the
/// face, so that its address cannot be reused by another face while the request keeps the key.
struct ContextMemoKey: Hashable {
    var face: FontFace
    var style: Int
    var script: Int32
    var rtl: Bool

    static func == (a: ContextMemoKey, b: ContextMemoKey) -> Bool {
        a.face === b.face && a.style == b.style && a.script == b.script && a.rtl == b.rtl
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(face))
        hasher.combine(style)
        hasher.combine(script)
        hasher.combine(rtl)
    }
}
