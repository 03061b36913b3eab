import LayoutProtocol

/// Every method the server answers, in the order `initialize` advertises them: the one table
/// that drives dispatch, the advertised capabilities, scheduling and "method not found".
enum MethodRegistry {
    static let advertised: [MethodEntry] = [
        MethodEntry(InitializeMethod.self), MethodEntry(LayoutMethod.self), MethodEntry(MeasureMethod.self),
        MethodEntry(BoundariesMethod.self), MethodEntry(HitTestMethod.self), MethodEntry(CaretMethod.self),
        MethodEntry(RectsMethod.self), MethodEntry(WordMethod.self), MethodEntry(LineRangeMethod.self),
        MethodEntry(SelectedTextMethod.self), MethodEntry(UpdateMethod.self), MethodEntry(ReleaseMethod.self),
        MethodEntry(RenderMethod.self), MethodEntry(StatsMethod.self), MethodEntry(ReloadMethod.self),
        MethodEntry(PingMethod.self),
    ]

    /// What `stats` counts requests for methods there are not under.
    static let unknownName = "(unknown)"

    /// The names `initialize` lists and "method not found" names.
    static let names = advertised.map(\.name)

    /// Protocol notifications (`$/…`, as LSP has them): `$/cancelRequest`, and the rest
    /// accepted and ignored.
    private static let cancelRequest = MethodEntry(CancelRequestMethod.self)
    private static let ignoredNotification = MethodEntry(IgnoredNotification.self)

    private static let byName: [String: MethodEntry] =
        Dictionary(uniqueKeysWithValues: (advertised + [cancelRequest]).map { ($0.name, $0) })

    /// The method named `name`, or nil when there is none.
    static func entry(_ name: String) -> MethodEntry? {
        if let entry = byName[name] { return entry }
        return name.hasPrefix("$/") ? ignoredNotification : nil
    }

    static func notFound(_ name: String) -> RPCError {
        RPCError(.methodNotFound, "method not found: \"\(name)\"; this server answers \(names.joined(separator: ", "))")
    }
}
