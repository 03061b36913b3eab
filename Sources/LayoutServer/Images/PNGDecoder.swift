import CPNG

/// Why a PNG could not be decoded: a message a person can act on.
struct PNGDecoderError: Error, Equatable, Sendable, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Decoded pixels: straight-alpha RGBA, 8 bits a channel, `width * 4` bytes a row.
struct RGBAImage: Sendable, Equatable {
    var width: Int
    var height: Int
    var pixels: [UInt8]
}

/// Decodes PNG files with libpng's simplified API (`png_image`, libpng 1.6, "Simplified API"
/// in png.h), which catches libpng's errors itself (no `setjmp` crosses into Swift). The sole
/// owner of one `png_image` and the reader state libpng keeps for it, freed in `deinit`
/// (`png_image_free`), whether or not the decode got to the end.
final class PNGDecoder {
    private var image = png_image()

    init() {
        image.version = layoutd_png_image_version()
    }

    deinit { png_image_free(&image) }

    /// The image in `bytes` as RGBA. Fails when libpng cannot read it (its message), or when
    /// a side is over `maxSide` pixels (checked from the header, before any pixel is
    /// decoded or memory for them taken).
    func decode(_ bytes: [UInt8], maxSide: Int) throws(PNGDecoderError) -> RGBAImage {
        let begun = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard begun != 0 else { throw PNGDecoderError(message: "not a PNG libpng can read: \(libpngMessage)") }
        let width = Int(image.width), height = Int(image.height)
        guard width >= 1, height >= 1, width <= maxSide, height <= maxSide else {
            throw PNGDecoderError(message: "\(width) × \(height) pixels, over the \(maxSide) a side accepted")
        }
        image.format = layoutd_png_format_rgba()
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let finished = pixels.withUnsafeMutableBytes {
            png_image_finish_read(&image, nil, $0.baseAddress, Int32(width * 4), nil)
        }
        guard finished != 0 else { throw PNGDecoderError(message: "its pixels cannot be decoded: \(libpngMessage)") }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// libpng's message for the last failure (`png_image.message`, NUL-terminated).
    private var libpngMessage: String {
        withUnsafeBytes(of: image.message) { raw in
            let text = String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            return text.isEmpty ? "no message" : text
        }
    }
}
