import Foundation
import LayoutProtocol
import Testing

/// The font fingerprint means "the same answers": the fonts' content and the fontconfig
/// rules, with the libraries' versions, not where the fonts live or when they came.
@Suite(.serialized) struct FingerprintTests {
    static let fonts = ["/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"]

    /// A folder holding copies of the two fonts (the last another font under its name, when
    /// `changed`: as a font package's new version brings),
    /// made `age` seconds old, and a fonts.conf naming it with `rules` added.
    static func fontFolder(_ root: String, _ name: String, age: TimeInterval, changed: Bool = false, rules: String = "") throws -> String {
        let folder = "\(root)/\(name)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for font in fonts {
            let source = changed && font == fonts.last ? font.replacingOccurrences(of: "DejaVuSans.ttf", with: "DejaVuSans-Bold.ttf") : font
            let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
            let copy = "\(folder)/\((font as NSString).lastPathComponent)"
            try bytes.write(to: URL(fileURLWithPath: copy))
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: copy)
        }
        let conf = "\(root)/\(name).conf"
        try """
            <?xml version="1.0"?>
            <fontconfig>
              <dir>\(folder)</dir>
              <cachedir>\(root)/cache-\(name)</cachedir>
              <alias><family>sans-serif</family><prefer><family>Noto Sans</family></prefer></alias>\(rules)
            </fontconfig>
            """.write(toFile: conf, atomically: true, encoding: .utf8)
        let config = "\(root)/\(name).json"
        try #"{"fontConfig": "\#(conf)"}"#.write(toFile: config, atomically: true, encoding: .utf8)
        return config
    }

    /// `initialize`'s fingerprint and parts, and `stats`'s, of a daemon on `config`.
    static func fingerprint(_ config: String) throws -> (value: String, parts: [String: String]) {
        let daemon = try Daemon(configPath: config)
        defer { daemon.stop() }
        let client = try daemon.connect()
        let initialized = try client.result("initialize", [:])
        let stats = try client.result("stats", [:])
        let value = initialized["fontFingerprint"]?.stringValue ?? ""
        #expect(stats["fonts"]?["fingerprint"]?.stringValue == value)
        #expect(stats["fonts"]?["fingerprintParts"] == initialized["fontFingerprintParts"])
        let parts = (initialized["fontFingerprintParts"]?.objectMembers ?? []).reduce(into: [String: String]()) { $0[$1.0] = $1.1.stringValue }
        return (value, parts)
    }

    @Test func sameFontsElsewhereAndOlderGiveTheSameFingerprint() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let here = try Self.fingerprint(try Self.fontFolder(root, "here", age: 0))
        let there = try Self.fingerprint(try Self.fontFolder(root, "there", age: 86_400 * 400))
        #expect(here.value == there.value && here.value.count == 16)
        #expect(Array(here.parts.keys).sorted() == ["faces", "freetype", "harfbuzz", "icu", "layoutd", "rules"])
        #expect(here.parts["layoutd"] == LayoutdVersion.current)
        // --check-config prints it as a line of its own, with its parts.
        let check = try run(try Daemon.binary(), ["--check-config", "\(root)/here.json"]).output
        #expect(check.split(separator: "\n").contains { $0.hasPrefix("fontFingerprint: \(here.value) (faces ") }, "\(check)")
    }

    @Test func aChangedFontOrRuleGivesAnother() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let base = try Self.fingerprint(try Self.fontFolder(root, "base", age: 0))
        let font = try Self.fingerprint(try Self.fontFolder(root, "font", age: 0, changed: true))
        #expect(font.value != base.value && font.parts["faces"] != base.parts["faces"] && font.parts["rules"] == base.parts["rules"])
        let rule = try Self.fingerprint(try Self.fontFolder(root, "rule", age: 0,
                                                            rules: "<alias><family>serif</family><prefer><family>DejaVu Sans</family></prefer></alias>"))
        #expect(rule.value != base.value && rule.parts["rules"] != base.parts["rules"] && rule.parts["faces"] == base.parts["faces"])
    }
}
