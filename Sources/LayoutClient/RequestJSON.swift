import LayoutProtocol

/// The protocol's parameter types as a client sends them: every member the caller set
/// (`LayoutParams.json` keeps only those the protocol's own round trips need).
extension LayoutParams {
    var requestJSON: JSONValue {
        guard case .object(var members) = json else { return json }
        members.removeAll { $0.0 == "paragraph" }
        if let paragraph = paragraph.requestJSON { members.append(("paragraph", paragraph)) }
        if !spans.isEmpty {
            members.append(("spans", .array(spans.map { span in
                guard case .object(let attributes) = span.attributes.json else { return .null }
                return .object([("start", .number(Double(span.start))), ("end", .number(Double(span.end)))] + attributes)
            })))
        }
        if insets != InsetsParams() {
            members.append(("insets", ["top": .number(insets.top), "left": .number(insets.left),
                                       "bottom": .number(insets.bottom), "right": .number(insets.right)]))
        }
        if !exclusions.isEmpty { members.append(("exclusions", .array(exclusions.map(\.json)))) }
        if scale != 1 { members.append(("scale", .number(scale))) }
        if !detectors.isEmpty {
            members.append(("detectors", .array(detectors.map { detector in
                guard case .object(let options) = detector.options, !options.isEmpty else { return .string(detector.kind) }
                return .object([("kind", .string(detector.kind))] + options)
            })))
        }
        if let attachments {
            members.append(("attachments", attachments.providers.map { .array($0.map { .string($0.name) }) } ?? true))
        }
        if retain { members.append(("retain", true)) }
        return .object(members)
    }
}

extension ParagraphParams {
    /// The members set, or nil when none is.
    var requestJSON: JSONValue? {
        var members: [(String, JSONValue)] = []
        func add(_ key: String, _ value: String?) { if let value { members.append((key, .string(value))) } }
        func add(_ key: String, _ value: Double?) { if let value { members.append((key, .number(value))) } }
        add("align", align); add("direction", direction); add("wrap", wrap)
        add("lineSpacing", lineSpacing); add("paragraphSpacing", paragraphSpacing)
        add("paragraphSpacingBefore", paragraphSpacingBefore); add("firstLineIndent", firstLineIndent)
        add("headIndent", headIndent); add("tailIndent", tailIndent); add("defaultTabInterval", defaultTabInterval)
        var lineHeight: [(String, JSONValue)] = []
        if let lineHeightMultiple { lineHeight.append(("multiple", .number(lineHeightMultiple))) }
        if let minimumLineHeight { lineHeight.append(("minimum", .number(minimumLineHeight))) }
        if let maximumLineHeight { lineHeight.append(("maximum", .number(maximumLineHeight))) }
        if !lineHeight.isEmpty { members.append(("lineHeight", .object(lineHeight))) }
        if !tabStops.isEmpty {
            members.append(("tabStops", .array(tabStops.map { ["location": .number($0.location), "alignment": .string($0.alignment)] })))
        }
        if let maxLines {
            members.append(("maxLines", .number(Double(maxLines))))
            var truncation: [(String, JSONValue)] = [("mode", .string(self.truncation.mode)), ("token", .string(self.truncation.token))]
            if let style = self.truncation.style { truncation.append(("style", style.json)) }
            members.append(("truncation", .object(truncation)))
        }
        return members.isEmpty ? nil : .object(members)
    }
}
