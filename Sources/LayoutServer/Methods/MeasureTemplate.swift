import LayoutEngine
import LayoutProtocol

/// The engine request a connection's last `measure` was built into, kept so that the next
/// one that differs only in its text and width is neither decoded nor built again: a chat
/// backend measures message after message with one font and paragraph style. Only params
/// whose every member is independent of the text are kept (no spans, detectors, attachment
/// providers or decorations, which are read with the text), and a template stands only for
/// the same members, in the same order, with the same engine and offset encoding.
final class MeasureTemplate: Sendable {
    /// The params' members but `text` and `width`, as sent.
    let members: [(String, JSONValue)]
    let engine: ObjectIdentifier
    let encoding: OffsetEncoding
    /// The request as built and set up for a measure, its text aside (`graphemes` cleared:
    /// they are the text's); nil until params with these members came twice in a row (each
    /// measure at a width of its own keeps no request it would not use again).
    let request: LayoutRequest?
    /// `MeasuredParagraphs.settingsDigest` of `request`: the same for every measure the
    /// template stands for (they differ only in text and width).
    let settingsDigest: Int?
    /// The font lookups of the measures this template stands for, carried from each to the
    /// next (one style: the same faces, chosen once).
    let fontCarry = FontSelectionCarry()

    init(members: [(String, JSONValue)], engine: ObjectIdentifier, encoding: OffsetEncoding, request: LayoutRequest?) {
        self.members = members
        self.engine = engine
        self.encoding = encoding
        self.request = request
        self.settingsDigest = request.map(MeasuredParagraphs.settingsDigest)
    }

    /// Whether a member sets how any text lays out, read without the text (`width` aside).
    static func isTextIndependent(_ key: String) -> Bool {
        switch key {
        case "font", "language", "paragraph", "insets", "exclusions", "scale", "detail", "direction": true
        default: false
        }
    }

    /// `params` as a template reads them: every member but `text` and `width`, and `text`.
    /// Nil when a member is one a template cannot stand for, one is repeated (the decoder's
    /// rules apply), or there is no `text`.
    static func parts(_ params: JSONValue?) -> (members: [(String, JSONValue)], text: JSONValue)? {
        guard case .object(let all)? = params else { return nil }
        var members: [(String, JSONValue)] = []
        members.reserveCapacity(all.count)
        var text: JSONValue?, hasWidth = false
        for (key, value) in all {
            if key == "text" {
                guard text == nil else { return nil }
                text = value
            } else if key == "width" {
                guard !hasWidth else { return nil }
                hasWidth = true
            } else if isTextIndependent(key) {
                members.append((key, value))
            } else {
                return nil
            }
        }
        return text.map { (members, $0) }
    }

    /// Whether this template stands for `members` under `engine` and `encoding`.
    func standsFor(_ members: [(String, JSONValue)], engine: ObjectIdentifier, encoding: OffsetEncoding) -> Bool {
        guard self.engine == engine, self.encoding == encoding, self.members.count == members.count else { return false }
        for (a, b) in zip(self.members, members) where a.0 != b.0 || a.1 != b.1 { return false }
        return true
    }
}

extension JSONValue {
    /// A string's UTF-16 units (as the parser gives `params.text`, or converted); nil for
    /// anything else.
    var utf16Units: [UInt16]? {
        switch self {
        case .utf16(let units): units
        case .string(let s): LayoutEngine.utf16Units(of: s)
        default: nil
        }
    }
}
