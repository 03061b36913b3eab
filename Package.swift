// swift-tools-version: 6.1
// layoutd — a text layout daemon for Linux.
//
// Layers, imports pointing one way:
//   C modules (CFontconfig, CFreeType, CHarfBuzz, CICUShim)
//     → LayoutEngine (fonts, analysis, shaping, breaking, lines, geometry)
//     → LayoutProtocol (JSON, JSON-RPC, parameter and result types; no engine, no C)
//     → LayoutTransport (sockets, line framing; no engine)
//     → LayoutServer (dispatch, caches; joins engine and protocol)
//     → executables (layoutd; layoutctl, which links neither HarfBuzz nor ICU)
import PackageDescription

let package = Package(
    name: "layoutd",
    products: [
        .executable(name: "layoutd", targets: ["layoutd"]),
        .executable(name: "layoutctl", targets: ["layoutctl"]),
    ],
    targets: [
        // MARK: C modules
        .systemLibrary(
            name: "CFontconfig", path: "Sources/CFontconfig", pkgConfig: "fontconfig",
            providers: [.apt(["libfontconfig-dev"])]),
        // FreeType is declared for the rasterizing `render` path; the engine shapes with
        // HarfBuzz's own OpenType functions and needs no FreeType face.
        .systemLibrary(
            name: "CFreeType", path: "Sources/CFreeType", pkgConfig: "freetype2",
            providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(
            name: "CHarfBuzz", path: "Sources/CHarfBuzz", pkgConfig: "harfbuzz",
            providers: [.apt(["libharfbuzz-dev"])]),
        .target(
            name: "CICUShim", path: "Sources/CICUShim",
            linkerSettings: [.linkedLibrary("icuuc")]),

        // MARK: Engine
        .target(
            name: "LayoutEngine",
            dependencies: ["CFontconfig", "CHarfBuzz", "CICUShim"],
            swiftSettings: [.swiftLanguageMode(.v6)]),

        // MARK: Protocol types, transport, server
        .target(name: "LayoutProtocol", swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(
            name: "LayoutTransport", dependencies: ["LayoutProtocol"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(
            name: "LayoutServer", dependencies: ["LayoutEngine", "LayoutProtocol", "LayoutTransport"],
            swiftSettings: [.swiftLanguageMode(.v6)]),

        // MARK: Executables
        .executableTarget(
            name: "layoutd", dependencies: ["LayoutServer", "LayoutEngine", "LayoutProtocol", "LayoutTransport"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(
            name: "layoutctl", dependencies: ["LayoutProtocol", "LayoutTransport"],
            swiftSettings: [.swiftLanguageMode(.v6)]),

        // MARK: Tests
        .testTarget(
            name: "LayoutEngineTests", dependencies: ["LayoutEngine"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(
            name: "LayoutProtocolTests", dependencies: ["LayoutProtocol", "LayoutTransport"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(
            name: "LayoutdIntegrationTests",
            dependencies: ["LayoutProtocol", "LayoutTransport", "layoutd", "layoutctl"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
