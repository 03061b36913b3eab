/// `boundaries` params: `{text, kind, language?}`.
public struct BoundariesParams: Sendable {
    /// The text (read from `textStorage`: converted when it came in UTF-16).
    public var text: String {
        get { textStorage.string }
        set { textStorage = .string(newValue) }
    }
    /// The text's UTF-16 code units when they came so from the wire, else nil (read `text`).
    public var textUnits: [UInt16]? { textStorage.units }
    var textStorage: TextStorage
    public var kind: String
    public var language: String?

    public static let kinds = ["grapheme", "word", "sentence", "line"]

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params)
        textStorage = try reader.requiredText("text")
        guard let kind = try reader.choice("kind", BoundariesParams.kinds) else {
            throw .invalidParams(field: "kind", "is required: one of \(BoundariesParams.kinds.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        self.kind = kind
        language = try reader.string("language", maxLength: 64)
        if let language { try LayoutParams.validateLanguage(language) }
    }
}
