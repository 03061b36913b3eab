import CFreeType

extension RasterFace {
    /// Copies an `FT_Bitmap` top row first into 8-bit coverage or BGRA with tight rows.
    static func copy(_ bitmap: FT_Bitmap, glyph: UInt32, in face: RasterFace) throws -> GlyphImage {
        let width = Int(bitmap.width)
        let height = Int(bitmap.rows)
        let mode = bitmap.pixel_mode
        let isColor = mode == UInt8(FT_PIXEL_MODE_BGRA.rawValue)
        let channels = isColor ? 4 : 1
        var result = GlyphImage(
            bitmap: GlyphRasterizer.GlyphBitmap(width: width, height: height, left: 0, top: 0, stride: width * channels, isColor: isColor),
            pixels: [])
        guard width > 0, height > 0, let buffer = bitmap.buffer else {
            result.bitmap.width = 0
            result.bitmap.height = 0
            result.bitmap.stride = 0
            return result
        }
        let pitch = Int(bitmap.pitch)
        func row(_ y: Int) -> UnsafeMutablePointer<UInt8> {
            pitch >= 0 ? buffer + y * pitch : buffer + (height - 1 - y) * -pitch
        }
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let source = row(y)
                let target = out.baseAddress! + y * width * channels
                switch mode {
                case UInt8(FT_PIXEL_MODE_BGRA.rawValue):
                    target.update(from: source, count: width * 4)
                case UInt8(FT_PIXEL_MODE_GRAY.rawValue):
                    let levels = Int(bitmap.num_grays)
                    if levels == 256 || levels <= 1 {
                        target.update(from: source, count: width)
                    } else {
                        for x in 0..<width { target[x] = UInt8(min(255, Int(source[x]) * 255 / (levels - 1))) }
                    }
                case UInt8(FT_PIXEL_MODE_MONO.rawValue):
                    for x in 0..<width { target[x] = source[x >> 3] & (0x80 >> UInt8(x & 7)) != 0 ? 255 : 0 }
                case UInt8(FT_PIXEL_MODE_GRAY2.rawValue):
                    for x in 0..<width {
                        let v = (source[x >> 2] >> UInt8(6 - 2 * (x & 3))) & 3
                        target[x] = v * 85
                    }
                case UInt8(FT_PIXEL_MODE_GRAY4.rawValue):
                    for x in 0..<width {
                        let v = (source[x >> 1] >> UInt8(4 - 4 * (x & 1))) & 15
                        target[x] = v * 17
                    }
                default:
                    break
                }
            }
        }
        let known: [FT_Pixel_Mode] = [FT_PIXEL_MODE_BGRA, FT_PIXEL_MODE_GRAY, FT_PIXEL_MODE_MONO, FT_PIXEL_MODE_GRAY2, FT_PIXEL_MODE_GRAY4]
        guard known.contains(where: { UInt8($0.rawValue) == mode }) else {
            throw GlyphRasterizerError(.renderFailed, "glyph \(glyph) of face \(face.index) of \(face.file) has an unsupported pixel mode \(mode)")
        }
        result.pixels = pixels
        return result
    }

    /// Scales an image by `scale`: a box filter (area average) when shrinking, bilinear
    /// when enlarging; separable, in floating point. Premultiplied BGRA resamples directly.
    static func resample(_ image: GlyphImage, scale: Double) -> GlyphImage {
        let channels = image.bitmap.isColor ? 4 : 1
        let (w, h) = (image.bitmap.width, image.bitmap.height)
        let dw = max(1, Int((Double(w) * scale).rounded()))
        let dh = max(1, Int((Double(h) * scale).rounded()))
        let xTaps = taps(source: w, target: dw)
        let yTaps = taps(source: h, target: dh)

        // Horizontal pass: h rows of dw pixels.
        var middle = [Float](repeating: 0, count: h * dw * channels)
        image.pixels.withUnsafeBufferPointer { src in
            middle.withUnsafeMutableBufferPointer { mid in
                for y in 0..<h {
                    let srow = y * w * channels
                    let mrow = y * dw * channels
                    for x in 0..<dw {
                        for (sx, weight) in xTaps[x] {
                            for c in 0..<channels {
                                mid[mrow + x * channels + c] += weight * Float(src[srow + sx * channels + c])
                            }
                        }
                    }
                }
            }
        }
        // Vertical pass.
        var pixels = [UInt8](repeating: 0, count: dh * dw * channels)
        middle.withUnsafeBufferPointer { mid in
            pixels.withUnsafeMutableBufferPointer { out in
                let rowLength = dw * channels
                for y in 0..<dh {
                    for i in 0..<rowLength {
                        var sum: Float = 0
                        for (sy, weight) in yTaps[y] { sum += weight * mid[sy * rowLength + i] }
                        out[y * rowLength + i] = UInt8(max(0, min(255, sum.rounded())))
                    }
                }
            }
        }
        let bitmap = GlyphRasterizer.GlyphBitmap(
            width: dw, height: dh,
            left: Int((Double(image.bitmap.left) * scale).rounded()),
            top: Int((Double(image.bitmap.top) * scale).rounded()),
            stride: dw * channels, isColor: image.bitmap.isColor)
        return GlyphImage(bitmap: bitmap, pixels: pixels)
    }

    /// For each target index, the source indices and weights (summing to 1) it draws from.
    static func taps(source: Int, target: Int) -> [[(Int, Float)]] {
        let ratio = Double(source) / Double(target)
        if target < source {
            // Box: target pixel t covers source [t·ratio, (t+1)·ratio).
            return (0..<target).map { t in
                let start = Double(t) * ratio, end = Double(t + 1) * ratio
                var list: [(Int, Float)] = []
                var s = Int(start)
                while Double(s) < end && s < source {
                    let overlap = min(end, Double(s + 1)) - max(start, Double(s))
                    if overlap > 0 { list.append((s, Float(overlap / ratio))) }
                    s += 1
                }
                return list
            }
        }
        // Bilinear, pixel centers aligned.
        return (0..<target).map { t in
            let position = min(max((Double(t) + 0.5) * ratio - 0.5, 0), Double(source - 1))
            let s0 = Int(position)
            let s1 = min(s0 + 1, source - 1)
            let f = Float(position - Double(s0))
            return s0 == s1 || f == 0 ? [(s0, Float(1))] : [(s0, 1 - f), (s1, f)]
        }
    }
}
