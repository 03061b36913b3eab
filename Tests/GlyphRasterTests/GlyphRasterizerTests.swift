import Testing
@testable import GlyphRaster

/// The rasterizer on the pinned fonts' files (the folders config/fonts.conf lists, which
/// scripts/setup installs): Noto Sans, Noto Color Emoji and Inter (variable).
@Suite struct GlyphRasterizerTests {
    static let notoSans = "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf"
    static let colorEmoji = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"
    static let inter = "/usr/share/fonts/truetype/inter-vf/Inter.var.ttf"
    static let rasterizer: GlyphRasterizer = {
        do { return try GlyphRasterizer() } catch { preconditionFailure("FreeType unavailable: \(error)") }
    }()
    static let wght: UInt32 = 0x7767_6874  // 'wght'
    /// A file that exists but is no font: this test file itself.
    static let notAFontFile = #filePath

    func glyph(_ file: String, _ scalar: Unicode.Scalar) throws -> UInt32 {
        try #require(try Self.rasterizer.glyphIndex(file: file, index: 0, scalar: scalar))
    }

    /// Coverage (or alpha) sum and the bitmap, for comparisons.
    func image(_ file: String, glyph: UInt32, size: Double, variations: [(tag: UInt32, value: Double)] = []) throws -> (GlyphRasterizer.GlyphBitmap, [UInt8]) {
        try Self.rasterizer.withGlyphImage(file: file, index: 0, variations: variations, glyph: glyph, pixelSize: size) { bitmap, pixels in
            (bitmap, Array(pixels))
        }
    }

    @Test func glyphIndexMapsAndMisses() throws {
        #expect(try Self.rasterizer.glyphIndex(file: Self.notoSans, index: 0, scalar: "A") != nil)
        #expect(try Self.rasterizer.glyphIndex(file: Self.notoSans, index: 0, scalar: "\u{1F600}") == nil)
        #expect(try Self.rasterizer.glyphIndex(file: Self.colorEmoji, index: 0, scalar: "\u{1F600}") != nil)
    }

    @Test func rasterizesLatinCapitalA() throws {
        let a = try glyph(Self.notoSans, "A")
        let (bitmap, pixels) = try image(Self.notoSans, glyph: a, size: 32)
        #expect(!bitmap.isColor)
        #expect((14...28).contains(bitmap.width), "width \(bitmap.width)")
        // Noto Sans's cap height is 0.714 em: about 23 px at 32 px per em.
        #expect((20...26).contains(bitmap.height), "height \(bitmap.height)")
        #expect((20...26).contains(bitmap.top), "top \(bitmap.top)")
        #expect((-2...3).contains(bitmap.left), "left \(bitmap.left)")
        #expect(bitmap.stride >= bitmap.width)
        #expect(pixels.count == bitmap.stride * bitmap.height)
        #expect(pixels.contains { $0 > 200 })
        #expect(pixels.lazy.map(Int.init).reduce(0, +) > 255 * 40)
    }

    @Test func spaceIsEmpty() throws {
        let space = try glyph(Self.notoSans, " ")
        let (bitmap, pixels) = try image(Self.notoSans, glyph: space, size: 32)
        #expect(bitmap.width == 0 && bitmap.height == 0 && pixels.isEmpty)
        var segments = 0
        #expect(try Self.rasterizer.outline(file: Self.notoSans, index: 0, variations: [], glyph: space, pixelSize: 32) { _ in segments += 1 })
        #expect(segments == 0)
    }

    @Test func outlineOfAHasMovesLinesAndCloses() throws {
        let a = try glyph(Self.notoSans, "A")
        var segments: [GlyphRasterizer.OutlineSegment] = []
        let hasOutline = try Self.rasterizer.outline(file: Self.notoSans, index: 0, variations: [], glyph: a, pixelSize: 32) { segments.append($0) }
        #expect(hasOutline)
        let moves = segments.filter { if case .move = $0 { true } else { false } }.count
        let lines = segments.filter { if case .line = $0 { true } else { false } }.count
        let closes = segments.filter { $0 == .close }.count
        #expect(moves == 2, "A has an outer contour and a counter")
        #expect(closes == moves)
        #expect(lines >= 6)
        if case .move = segments.first {} else { Issue.record("first segment is not a move") }
        #expect(segments.last == .close)
        // y down: the apex is above the baseline, so at negative y near the cap height.
        var ys: [Double] = []
        for segment in segments {
            switch segment {
            case .move(_, let y), .line(_, let y): ys.append(y)
            case .quad(_, _, _, let y), .cubic(_, _, _, _, _, let y): ys.append(y)
            case .close: break
            }
        }
        let top = try #require(ys.min()), bottom = try #require(ys.max())
        #expect((-25 ... -20).contains(top), "top \(top)")
        #expect(abs(bottom) < 0.5, "bottom \(bottom)")
    }

    @Test func colorEmojiComesBackAsScaledBGRA() throws {
        let grinning = try glyph(Self.colorEmoji, "\u{1F600}")
        let (bitmap, pixels) = try image(Self.colorEmoji, glyph: grinning, size: 40)
        #expect(bitmap.isColor)
        #expect((40...60).contains(bitmap.width), "width \(bitmap.width)")
        #expect((36...60).contains(bitmap.height), "height \(bitmap.height)")
        #expect(bitmap.stride == bitmap.width * 4)
        #expect(pixels.count == bitmap.stride * bitmap.height)
        var opaque = 0
        var notPremultiplied = 0
        for i in stride(from: 0, to: pixels.count, by: 4) {
            let alpha = pixels[i + 3]
            if alpha > 250 { opaque += 1 }
            if pixels[i] > alpha || pixels[i + 1] > alpha || pixels[i + 2] > alpha { notPremultiplied += 1 }
        }
        #expect(opaque > bitmap.width * bitmap.height / 3)
        #expect(notPremultiplied == 0)
        // Bigger sizes scale up from the same strike.
        let (large, _) = try image(Self.colorEmoji, glyph: grinning, size: 160)
        #expect(large.isColor && large.width > bitmap.width * 3)
        // A bitmap-only face has no outline.
        #expect(try !Self.rasterizer.outline(file: Self.colorEmoji, index: 0, variations: [], glyph: grinning, pixelSize: 40) { _ in })
    }

    @Test func variationsChangeTheGlyphAndReset() throws {
        let a = try glyph(Self.inter, "A")
        func ink(_ variations: [(tag: UInt32, value: Double)]) throws -> Int {
            try image(Self.inter, glyph: a, size: 48, variations: variations).1.lazy.map(Int.init).reduce(0, +)
        }
        let regular = try ink([])
        let thin = try ink([(Self.wght, 100)])
        let black = try ink([(Self.wght, 900)])
        #expect(thin < regular && regular < black, "thin \(thin), regular \(regular), black \(black)")
        #expect(Double(black) > Double(thin) * 2)
        #expect(try ink([]) == regular, "no variations return to the face's own values")
        #expect(try ink([(Self.wght, 5000)]) == black, "values clamp to the axis range")
    }

    @Test func rejectsBadRequests() throws {
        let a = try glyph(Self.notoSans, "A")
        let missing = "/nonexistent/NoSuchFont.ttf"
        let notFound = #expect(throws: GlyphRasterizerError.self) {
            try Self.rasterizer.withGlyphImage(file: missing, index: 0, variations: [], glyph: a, pixelSize: 32) { _, _ in }
        }
        #expect(notFound?.kind == .fontNotFound)
        #expect(notFound?.description.contains(missing) == true)
        #expect(throws: GlyphRasterizerError.self) { try Self.rasterizer.glyphIndex(file: missing, index: 0, scalar: "A") }

        for size in [0, -1, .nan, .infinity, 2049] as [Double] {
            let error = #expect(throws: GlyphRasterizerError.self) {
                try Self.rasterizer.withGlyphImage(file: Self.notoSans, index: 0, variations: [], glyph: a, pixelSize: size) { _, _ in }
            }
            #expect(error?.kind == .invalidPixelSize, "size \(size)")
            let outlineError = #expect(throws: GlyphRasterizerError.self) {
                try Self.rasterizer.outline(file: Self.notoSans, index: 0, variations: [], glyph: a, pixelSize: size) { _ in }
            }
            #expect(outlineError?.kind == .invalidPixelSize, "size \(size)")
        }
        let badGlyph = #expect(throws: GlyphRasterizerError.self) {
            try Self.rasterizer.withGlyphImage(file: Self.notoSans, index: 0, variations: [], glyph: 1_000_000, pixelSize: 32) { _, _ in }
        }
        #expect(badGlyph?.kind == .invalidGlyph)
        #expect(throws: GlyphRasterizerError.self) {
            try Self.rasterizer.outline(file: Self.notoSans, index: 0, variations: [], glyph: 1_000_000, pixelSize: 32) { _ in }
        }
        let badIndex = #expect(throws: GlyphRasterizerError.self) {
            try Self.rasterizer.withGlyphImage(file: Self.notoSans, index: 7, variations: [], glyph: a, pixelSize: 32) { _, _ in }
        }
        #expect(badIndex?.kind == .unreadableFont)
        // A file that is not a font.
        let notAFont = #expect(throws: GlyphRasterizerError.self) {
            try Self.rasterizer.withGlyphImage(file: Self.notAFontFile, index: 0, variations: [], glyph: 0, pixelSize: 32) { _, _ in }
        }
        #expect(notAFont?.kind == .unreadableFont)
    }

    @Test func manyThreadsAtOnce() async throws {
        let a = try glyph(Self.notoSans, "A")
        let grinning = try glyph(Self.colorEmoji, "\u{1F600}")
        let expected = try image(Self.notoSans, glyph: a, size: 32).1
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<32 {
                group.addTask {
                    if i % 2 == 0 {
                        return try Self.rasterizer.withGlyphImage(file: Self.notoSans, index: 0, variations: [], glyph: a, pixelSize: 32) { _, pixels in
                            Array(pixels) == expected
                        }
                    }
                    return try Self.rasterizer.withGlyphImage(file: Self.colorEmoji, index: 0, variations: [], glyph: grinning, pixelSize: Double(20 + i)) { bitmap, _ in
                        bitmap.isColor
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 32 && results.allSatisfy { $0 })
    }
}
