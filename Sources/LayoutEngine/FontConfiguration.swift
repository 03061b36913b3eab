import CFontconfig

/// Owns one fontconfig configuration (`FcConfig`): which font folders exist and how families
/// are matched and ordered. Destroyed with its owner.
///
/// Fails with `EngineError.fontConfigurationFailed` when the file cannot be parsed.
final class FontConfiguration: @unchecked Sendable {
    // fontconfig (≥ 2.13) is safe to query from several threads once fonts are built; the
    // configuration is never changed after init.
    let config: OpaquePointer
    /// The file the configuration came from, or nil for the system's default.
    let path: String?

    /// Loads `path` (a fonts.conf file) and scans the fonts it names; with nil, the system's
    /// default configuration.
    init(path: String?) throws {
        if let path {
            guard let config = FcConfigCreate() else { throw EngineError.fontConfigurationFailed(path: path) }
            let loaded = path.withCString { FcConfigParseAndLoad(config, fcString($0), FcBool(FcTrue)) }
            guard loaded == FcTrue, FcConfigBuildFonts(config) == FcTrue else {
                FcConfigDestroy(config)
                throw EngineError.fontConfigurationFailed(path: path)
            }
            self.config = config
        } else {
            guard let config = FcInitLoadConfigAndFonts() else {
                throw EngineError.fontConfigurationFailed(path: "(system default)")
            }
            self.config = config
        }
        self.path = path
    }

    deinit { FcConfigDestroy(config) }

    /// Number of font faces the configuration knows.
    var fontCount: Int {
        guard let set = FcConfigGetFonts(config, FcSetSystem) else { return 0 }
        return Int(set.pointee.nfont)
    }
}

/// A C string as fontconfig's `FcChar8` pointer.
@inline(__always)
func fcString(_ p: UnsafePointer<CChar>) -> UnsafePointer<FcChar8> {
    UnsafeRawPointer(p).assumingMemoryBound(to: FcChar8.self)
}
