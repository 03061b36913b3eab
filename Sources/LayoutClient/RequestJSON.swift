import LayoutProtocol

/// The protocol's parameter types as a client sends them: every member the caller set
/// (`LayoutParams.json` keeps only those the protocol's own round trips need).
extension LayoutParams {
    /// These params as `layout` and `measure` take them.
    public var requestJSON: JSONValue {
        var members = json.objectMembers ?? []
        members.removeAll { $0.0 == "paragraph" }
        if let paragraph = paragraph.requestJSON { members.append(("paragraph", paragraph)) }
        if !spans.isEmpty {
            members.append(("spans", .array(spans.map { span in
                let attributes = span.attributes.json.objectMembers ?? []
                return .object([("start", .number(Double(span.start))), ("end", .number(Double(span.end)))] + attributes)
            })))
        }
        if insets != InsetsParams() {
            members.append(("insets", ["top": .number(insets.top), "left": .number(insets.left),
                                       "bottom": .number(insets.bottom), "right": .number(insets.right)]))
        }
        if !exclusions.isEmpty { members.append(("exclusions", .array(exclusions.map(\.json)))) }
        if scale != 1 { members.append(("scale", .number(scale))) }
        if !detectors.isEmpty { members.append(("detectors", .array(detectors.map(\.json)))) }
        if let attachments { members.append(("attachments", attachments.json)) }
        if let decorations { members.append(("decorations", decorations.json)) }
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
        add("align", align); add("direction", direction); add("wrap", wrap); add("wrapStyle", wrapStyle)
        add("hyphenation", hyphenation)
        let m = hyphenationMinimum
        let minimum = [("before", m.before), ("after", m.after), ("word", m.word)].compactMap { key, value in
            value.map { (key, JSONValue.number(Double($0))) }
        }
        if !minimum.isEmpty { members.append(("hyphenationMinimum", .object(minimum))) }
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

extension RenderParams {
    /// These params as `render` takes them: the picture's members, beside the handle or the
    /// layout params.
    var requestJSON: JSONValue {
        var members: [(String, JSONValue)] = []
        if let handle { members.append(("handle", .string(handle))) }
        if handle == nil, let layout { members += (layout.requestJSON.objectMembers ?? []).filter { $0.0 != "retain" && $0.0 != "scale" } }
        members.append(("format", .string(format)))
        if scale != 1 { members.append(("scale", .number(scale))) }
        if overlay { members.append(("overlay", true)) }
        if margin != 0 { members.append(("margin", .number(margin))) }
        if !highlights.isEmpty {
            members.append(("highlight", .array(highlights.map { h in
                ["start": .number(Double(h.start)), "end": .number(Double(h.end)),
                 "state": .string(HighlightParams.states[min(max(h.state, 0), HighlightParams.states.count - 1)])]
            })))
        }
        if let selection { members.append(("selection", ["start": .number(Double(selection.start)), "end": .number(Double(selection.end))])) }
        members.append(("background", background.map { .string($0) } ?? "transparent"))
        if renderer != "render" { members.append(("renderer", .string(renderer))) }
        if options.objectMembers?.isEmpty == false { members.append(("options", options)) }
        return .object(members)
    }
}
