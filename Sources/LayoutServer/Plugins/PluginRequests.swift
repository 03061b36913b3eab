import LayoutEngine
import LayoutProtocol

extension LayoutService {
    /// Runs the plugins a `layout` request asks for over its text: attachment providers
    /// (`attachments`) give inline-object spans, link detectors (`detectors`) give regions.
    /// Results come back in UTF-16, snapped outward to grapheme clusters, overlaps resolved:
    /// the client's attachments and links win over plugins' results, attachments over
    /// links, and among links the earliest, then longest, then first-asked wins. Unknown
    /// kinds and providers fail with -32602 naming what is loaded; a plugin call that fails
    /// is a warning in the result, not an error.
    func pluginSpans(_ p: LayoutParams, text: [UInt16], userSpans: [(start: Int, end: Int, attributes: SpanAttributes)],
                     detect: Bool, warnings: inout [String],
                     snapped: (Int, Int) throws(RPCError) -> (Int, Int))
        throws(RPCError) -> (attachments: [(start: Int, end: Int, attributes: SpanAttributes)],
                             links: [(kind: String, start: Int, end: Int, value: JSONValue)]) {
        let wantsLinks = detect && !p.detectors.isEmpty
        guard p.attachments != nil || wantsLinks else { return ([], []) }
        let plugins = self.plugins
        let pluginText = PluginText(utf16: text)

        // Attachments.
        var attachments: [(start: Int, end: Int, attributes: SpanAttributes)] = []
        if let asked = p.attachments {
            var providers: [(LoadedPlugin, JSONValue)] = []
            if let named = asked.providers {
                for (i, entry) in named.enumerated() {
                    guard let plugin = plugins.attachmentProvider(named: entry.name) else {
                        let loaded = plugins.attachmentProviders.map { "\"\($0.name)\"" }
                        throw .invalidParams(field: "attachments[\(i)]", "names no loaded attachment provider \"\(entry.name)\"; loaded: \(loaded.isEmpty ? "none" : loaded.joined(separator: ", "))")
                    }
                    providers.append((plugin, entry.options))
                }
            } else {
                providers = plugins.attachmentProviders.map { ($0, [:]) }
            }
            let fontSize = p.font.size ?? configuration.defaultSize
            var found: [(start: Int, end: Int, object: ProvidedAttachment)] = []
            for (plugin, options) in providers {
                switch plugin.attachments(text: pluginText.bytes, fontSize: fontSize, options: options) {
                case .success(let objects):
                    for o in objects {
                        let (start, end) = try snapped(pluginText.utf16(o.start), pluginText.utf16(o.end))
                        found.append((start, end, o))
                    }
                case .failure(let f):
                    warnings.append("attachment provider \"\(plugin.name)\" failed: \(f.message)")
                }
            }
            let taken = userSpans.filter { $0.attributes.attachment != nil }.map { $0.start..<$0.end }
            for item in Self.nonOverlapping(found.map { ($0.start, $0.end) }, avoiding: taken) {
                let o = found[item].object
                var attributes = SpanAttributes()
                attributes.attachment = AttachmentSpec(width: o.width, ascent: o.ascent, descent: o.descent,
                                                       value: o.value.map { .string($0) })
                attachments.append((found[item].start, found[item].end, attributes))
            }
        }

        // Links.
        var links: [(kind: String, start: Int, end: Int, value: JSONValue)] = []
        if wantsLinks {
            var found: [(start: Int, end: Int, kind: String, value: String)] = []
            for (i, asked) in p.detectors.enumerated() {
                guard let plugin = plugins.detector(for: asked.kind) else {
                    let kinds = plugins.detectorKinds.map { "\"\($0)\"" }
                    throw .invalidParams(field: "detectors[\(i)]", "asks for \"\(asked.kind)\", which no loaded plugin detects; available: \(kinds.isEmpty ? "none" : kinds.joined(separator: ", "))")
                }
                switch plugin.detect(text: pluginText.bytes, kind: asked.kind, options: asked.options, language: p.language ?? "") {
                case .success(let hits):
                    for hit in hits {
                        let (start, end) = try snapped(pluginText.utf16(hit.start), pluginText.utf16(hit.end))
                        let matched = String(decoding: pluginText.bytes[hit.start..<hit.end], as: UTF8.self)
                        found.append((start, end, hit.kind, hit.value ?? matched))
                    }
                case .failure(let f):
                    warnings.append("detector \"\(asked.kind)\" (plugin \"\(plugin.name)\") failed: \(f.message)")
                }
            }
            let taken = (userSpans.filter { $0.attributes.attachment != nil || $0.attributes.link != nil }.map { $0.start..<$0.end })
                + attachments.map { $0.start..<$0.end }
            for item in Self.nonOverlapping(found.map { ($0.start, $0.end) }, avoiding: taken) {
                let hit = found[item]
                links.append((hit.kind, hit.start, hit.end, .string(hit.value)))
            }
        }
        return (attachments, links)
    }

    /// Indices of `ranges` to keep: none overlapping another kept one or any of `taken`;
    /// earliest start first, then the longest, then the first given. Sorted by start.
    static func nonOverlapping(_ ranges: [(Int, Int)], avoiding taken: [Range<Int>]) -> [Int] {
        let order = ranges.indices.sorted {
            (ranges[$0].0, -ranges[$0].1, $0) < (ranges[$1].0, -ranges[$1].1, $1)
        }
        let blocked = taken.filter { !$0.isEmpty }.sorted { $0.lowerBound < $1.lowerBound }
        var kept: [Int] = []
        var end = Int.min
        var b = 0
        for i in order {
            let (s, e) = ranges[i]
            guard e > s, s >= end else { continue }
            // Blocked ranges ending at or before this start can never matter again.
            while b < blocked.count, blocked[b].upperBound <= s { b += 1 }
            var clash = false
            var j = b
            while j < blocked.count, blocked[j].lowerBound < e {
                if blocked[j].upperBound > s { clash = true; break }
                j += 1
            }
            if clash { continue }
            kept.append(i)
            end = e
        }
        return kept
    }
}
