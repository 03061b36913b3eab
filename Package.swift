// swift-tools-version: 6.1
// layoutd — a text layout daemon for Linux.
//
// Layers, imports pointing one way:
//   C modules (CFontconfig, CFreeType, CHarfBuzz, CICUShim, CHyphen; CZlib and CPNG for the server's images)
//     → LayoutEngine (fonts, analysis, shaping, lines, queries, reuse) → GlyphRaster (FreeType, for rendering only)
//     → LayoutProtocol (JSON, JSON-RPC, parameter and result types; no engine, no C)
//     → LayoutTransport (sockets, line framing; no engine)
//     → LayoutClient (the Swift client library; no engine) beside LayoutServer (dispatch, caches; joins engine and protocol)
//     → executables (layoutd; layoutctl, which links neither HarfBuzz nor ICU)
import PackageDescription

let package = Package(
    name: "layoutd",
    products: [
        .executable(name: "layoutd", targets: ["layoutd"]),
        .executable(name: "layoutctl", targets: ["layoutctl"]),
        // The Swift client library: async/await over the protocol's types (no HarfBuzz, no ICU).
        .library(name: "LayoutClient", targets: ["LayoutClient"]),
        // Plugins: shared objects installed beside layoutd, loaded by default.
        .library(name: "layoutd-plugin-links", type: .dynamic, targets: ["LinksPlugin"]),
        .library(name: "layoutd-plugin-shortcodes", type: .dynamic, targets: ["ShortcodesPlugin"]),
        .library(name: "layoutd-plugin-render", type: .dynamic, targets: ["RenderPlugin"]),
        .library(name: "layoutd-plugin-ticket", type: .dynamic, targets: ["TicketPlugin"]),
    ],
    targets: [
        // MARK: C modules
        .systemLibrary(
            name: "CFontconfig", path: "Sources/CFontconfig", pkgConfig: "fontconfig",
            providers: [.apt(["libfontconfig-dev"])]),
        // FreeType is for the rasterizing `render` path (GlyphRaster); the engine shapes with
        // HarfBuzz's own OpenType functions and needs no FreeType face.
        .systemLibrary(
            name: "CFreeType", path: "Sources/CFreeType", pkgConfig: "freetype2",
            providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(
            name: "CHarfBuzz", path: "Sources/CHarfBuzz", pkgConfig: "harfbuzz",
            providers: [.apt(["libharfbuzz-dev"])]),
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        // libpng decodes the attachment images a configuration names, for the renderers.
        .systemLibrary(
            name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        // libhyphen (Liang's patterns, the hyphenation library of LibreOffice and Debian's
        // hyphen-* dictionaries). It ships no pkg-config file, so the module links it by name.
        .systemLibrary(name: "CHyphen", path: "Sources/CHyphen", providers: [.apt(["libhyphen-dev"])]),
        // epoll and eventfd (libc headers the Glibc module leaves out).
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        .target(
            name: "CICUShim", path: "Sources/CICUShim",
            linkerSettings: [.linkedLibrary("icuuc")]),

        // The plugin ABI: one header (include/layoutd_plugin.h), the only thing plugins link.
        .target(name: "CLayoutPlugin", path: "Sources/CLayoutPlugin"),

        // Plugin calls guarded against the plugin crashing or hanging (sigsetjmp, a timer).
        .target(name: "CPluginGuard", dependencies: ["CLayoutPlugin"], path: "Sources/CPluginGuard"),

        // MARK: Engine
        .target(
            name: "LayoutEngine",
            dependencies: ["CFontconfig", "CHarfBuzz", "CICUShim", "CHyphen"],
            swiftSettings: [.swiftLanguageMode(.v6)]),

        // MARK: Glyph rasterizing (FreeType), used only by rendering
        .target(
            name: "GlyphRaster", dependencies: ["CFreeType", "LayoutEngine"],
            swiftSettings: [.swiftLanguageMode(.v6)]),

        // MARK: Protocol types, transport, server
        .target(name: "LayoutProtocol", swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(
            name: "LayoutTransport", dependencies: ["LayoutProtocol", "CEpoll"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        // The client library, over protocol types and transport only.
        .target(
            name: "LayoutClient", dependencies: ["LayoutProtocol", "LayoutTransport"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(
            name: "LayoutServer",
            dependencies: ["LayoutEngine", "GlyphRaster", "LayoutProtocol", "LayoutTransport", "CLayoutPlugin", "CPluginGuard", "CZlib", "CPNG"],
            swiftSettings: [.swiftLanguageMode(.v6)]),

        // MARK: Executables
        .executableTarget(
            name: "layoutd", dependencies: ["LayoutServer", "LayoutEngine", "GlyphRaster", "LayoutProtocol", "LayoutTransport"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(
            name: "layoutctl", dependencies: ["LayoutClient", "LayoutProtocol", "LayoutTransport"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        // The Swift client's example in docs/swift.md, built as written (a test runs it).
        .executableTarget(
            name: "layoutclient-example", dependencies: ["LayoutClient", "LayoutProtocol"], path: "clients/swift/example",
            swiftSettings: [.swiftLanguageMode(.v6)]),
        // The engine's part of the bench's corpus row, in process (run by scripts/bench).
        .executableTarget(
            name: "engine-bench", dependencies: ["LayoutEngine", "LayoutProtocol"], path: "Sources/engine-bench",
            swiftSettings: [.swiftLanguageMode(.v6)]),

        // MARK: Plugins (C, linking only the ABI header target)
        // Helpers the shipped plugins share (Aho–Corasick key matching, error messages), compiled
        // into links and shortcodes; libc only.
        .target(
            name: "PluginSupport", dependencies: ["CLayoutPlugin"], path: "Plugins/shared",
            cSettings: [.unsafeFlags(["-fvisibility=hidden"])]),
        .target(
            name: "LinksPlugin", dependencies: ["CLayoutPlugin", "PluginSupport"], path: "Plugins/links", publicHeadersPath: ".",
            cSettings: [.unsafeFlags(["-fvisibility=hidden"])]),
        .target(
            name: "ShortcodesPlugin", dependencies: ["CLayoutPlugin", "PluginSupport"], path: "Plugins/shortcodes", publicHeadersPath: ".",
            cSettings: [.unsafeFlags(["-fvisibility=hidden"])]),
        .target(
            name: "RenderPlugin", dependencies: ["CLayoutPlugin", "PluginSupport"], path: "Plugins/render", publicHeadersPath: ".",
            cSettings: [.unsafeFlags(["-fvisibility=hidden"])]),

        // The ticket-key link detector (Plugins/example).
        .target(
            name: "TicketPlugin", dependencies: ["CLayoutPlugin"], path: "Plugins/example", publicHeadersPath: ".",
            cSettings: [.unsafeFlags(["-fvisibility=hidden"])]),

        // MARK: Tests
        // What the test targets share: the repository's root, one engine on the pinned fonts, a seeded generator.
        .target(
            name: "TestSupport", dependencies: ["LayoutEngine"], path: "Tests/TestSupport",
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(
            name: "LayoutEngineTests", dependencies: ["LayoutEngine", "TestSupport"], exclude: ["Data"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(
            name: "GlyphRasterTests", dependencies: ["GlyphRaster"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(
            name: "LayoutProtocolTests", dependencies: ["LayoutProtocol", "LayoutTransport"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        // The server in process: dispatch, methods, scheduling (no daemon started).
        .testTarget(
            name: "LayoutServerTests", dependencies: ["LayoutServer", "LayoutEngine", "LayoutProtocol", "LayoutTransport", "TestSupport"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        // The transport in process: framing, the loop over a socketpair, deadlines.
        .testTarget(
            name: "LayoutTransportTests", dependencies: ["LayoutTransport", "LayoutProtocol"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(
            name: "LayoutdIntegrationTests",
            dependencies: ["LayoutProtocol", "LayoutTransport", "LayoutClient", "CZlib", "TestSupport", "layoutd", "layoutctl",
                           "layoutclient-example"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
