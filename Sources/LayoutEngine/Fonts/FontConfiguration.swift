import CFontconfig
#if canImport(Glibc)
import Glibc
#endif

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

    /// Every face fontconfig lists: its file and index.
    var faces: [(path: String, index: Int32)] {
        guard let set = FcConfigGetFonts(config, FcSetSystem) else { return [] }
        return (0..<Int(set.pointee.nfont)).compactMap { i in set.pointee.fonts[i].flatMap(fontFile(of:)) }
    }

    /// The configuration files fontconfig read, in the order it read them.
    var configurationFiles: [String] {
        var files: [String] = []
        guard let list = FcConfigGetConfigFiles(config) else { return files }
        while let file = FcStrListNext(list) {
            files.append(String(cString: UnsafeRawPointer(file).assumingMemoryBound(to: CChar.self)))
        }
        FcStrListDone(list)
        return files
    }

    /// Files in the configuration's font folders (searched to a depth of 8) with a font's
    /// extension that no face of the configuration comes from (`known`: `fontFiles`):
    /// fontconfig could not read them.
    func skippedFiles(known: Set<String>, limit: Int = 1000) -> [String] {
        var folders: [String] = []
        if let list = FcConfigGetFontDirs(config) {
            while let dir = FcStrListNext(list) {
                folders.append(String(cString: UnsafeRawPointer(dir).assumingMemoryBound(to: CChar.self)))
            }
            FcStrListDone(list)
        }
        let extensions: Set<String> = ["ttf", "otf", "ttc", "otc", "woff", "woff2", "pfb", "pfa", "pcf", "bdf"]
        var skipped: [String] = []
        var seenFolders = Set<String>()
        func walk(_ folder: String, depth: Int) {
            guard depth < 8, skipped.count < limit, seenFolders.insert(folder).inserted, let dir = opendir(folder) else { return }
            defer { closedir(dir) }
            while let entry = readdir(dir), skipped.count < limit {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard name != ".", name != "..", !name.hasPrefix(".") else { continue }
                let path = folder.hasSuffix("/") ? folder + name : "\(folder)/\(name)"
                if entry.pointee.d_type == UInt8(DT_DIR) { continue }   // fontconfig lists subfolders itself
                let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
                if extensions.contains(ext), !known.contains(path) { skipped.append(path) }
            }
        }
        for folder in folders { walk(folder, depth: 0) }
        return skipped.sorted()
    }

    /// The files of every face the configuration lists.
    var fontFiles: Set<String> {
        guard let set = FcConfigGetFonts(config, FcSetSystem) else { return [] }
        var files = Set<String>()
        for i in 0..<Int(set.pointee.nfont) {
            if let font = set.pointee.fonts[i], let (name, _) = fontFile(of: font) { files.insert(name) }
        }
        return files
    }

    /// The families of the faces the configuration lists (each face's first family name),
    /// sorted, each once.
    var families: [String] {
        guard let set = FcConfigGetFonts(config, FcSetSystem) else { return [] }
        var names = Set<String>()
        for i in 0..<Int(set.pointee.nfont) {
            var family: UnsafeMutablePointer<FcChar8>?
            if let font = set.pointee.fonts[i], FcPatternGetString(font, FC_FAMILY, 0, &family) == FcResultMatch, let family {
                names.insert(String(cString: UnsafeRawPointer(family).assumingMemoryBound(to: CChar.self)))
            }
        }
        return names.sorted()
    }

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

/// The file path and face index (FC_FILE, FC_INDEX; 0 when unset) of a fontconfig pattern,
/// or nil when it names no file. The pattern stays its owner's.
func fontFile(of pattern: OpaquePointer) -> (path: String, index: Int32)? {
    var file: UnsafeMutablePointer<FcChar8>?
    guard FcPatternGetString(pattern, FC_FILE, 0, &file) == FcResultMatch, let file else { return nil }
    var index: Int32 = 0
    _ = FcPatternGetInteger(pattern, FC_INDEX, 0, &index)
    return (String(cString: UnsafeRawPointer(file).assumingMemoryBound(to: CChar.self)), index)
}
