import CZlib

/// Why `PNGEncoder.encode` refused an image or failed.
struct PNGEncoderError: Error, Equatable, Sendable, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Encodes RGBA pixels as PNG files and bytes as base64 text, for images sent over the
/// socket (for example as `data:image/png;base64,…` URLs). Uses zlib (through CZlib) for
/// compression and CRCs; needs nothing else.
enum PNGEncoder {
    /// The largest width or height accepted.
    static let maximumDimension = 16384

    /// Encodes `height` rows of `width` pixels of 8-bit RGBA (straight, not premultiplied,
    /// alpha), rows `stride` bytes apart starting at `rgba`'s first byte, as a PNG: color
    /// type 6, bit depth 8, not interlaced, with each row's filter (None, Sub, Up, Average or
    /// Paeth) chosen by the smallest sum of absolute filtered bytes, compressed by zlib's
    /// `compress2` at level 6 into IDAT chunks of at most 1 MiB.
    ///
    /// Reads `rgba` only during the call; the returned bytes are the caller's. Fails with
    /// `PNGEncoderError` when `width` or `height` is ≤ 0 or > 16384, `stride` is less than
    /// `width * 4`, `rgba` is shorter than `stride * (height - 1) + width * 4` bytes, or zlib
    /// fails (out of memory).
    static func encode(rgba: UnsafeBufferPointer<UInt8>, width: Int, height: Int, stride: Int) throws -> [UInt8] {
        guard (1...maximumDimension).contains(width), (1...maximumDimension).contains(height) else {
            throw PNGEncoderError(message: "PNG size \(width)×\(height) is out of range: each side must be 1 to \(maximumDimension) pixels")
        }
        let rowBytes = width * 4
        guard stride >= rowBytes else {
            throw PNGEncoderError(message: "row stride \(stride) is less than \(rowBytes), the bytes of one row of \(width) RGBA pixels")
        }
        let needed = stride * (height - 1) + rowBytes
        guard rgba.count >= needed, let source = rgba.baseAddress else {
            throw PNGEncoderError(message: "pixel buffer holds \(rgba.count) bytes; \(width)×\(height) RGBA with stride \(stride) needs \(needed)")
        }

        // Filtered scanlines: one filter-type byte, then the row.
        let lineBytes = rowBytes + 1
        var filtered = [UInt8](repeating: 0, count: lineBytes * height)
        // Scratch: one candidate row and one row of zeros (the row above the first).
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * rowBytes)
        defer { scratch.deallocate() }
        scratch.initialize(repeating: 0, count: 2 * rowBytes)
        let candidate = scratch, zeros = UnsafePointer(scratch + rowBytes)
        filtered.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let row = source + y * stride
                let previous = y > 0 ? source + (y - 1) * stride : zeros
                let line = out.baseAddress! + y * lineBytes
                var bestCost = Int.max
                for type in UInt8(0)...4 {
                    if type == 2 && y == 0 { continue }  // Up on the first row is None.
                    let cost = filter(type, row: row, previous: previous, count: rowBytes, into: candidate, limit: bestCost)
                    if cost < bestCost {
                        bestCost = cost
                        line[0] = type
                        (line + 1).update(from: candidate, count: rowBytes)
                    }
                }
            }
        }

        // zlib stream of the scanlines.
        var compressedLength = compressBound(uLong(filtered.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedLength))
        let status = compressed.withUnsafeMutableBufferPointer { out in
            filtered.withUnsafeBufferPointer { input in
                compress2(out.baseAddress, &compressedLength, input.baseAddress, uLong(input.count), 6)
            }
        }
        guard status == Z_OK else {
            throw PNGEncoderError(message: "zlib compress2 failed with status \(status)")
        }

        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png.reserveCapacity(Int(compressedLength) + 64 + Int(compressedLength) / (1 << 20) * 12)
        var header: [UInt8] = []
        appendBigEndian(UInt32(width), to: &header)
        appendBigEndian(UInt32(height), to: &header)
        header += [8, 6, 0, 0, 0]  // bit depth 8, RGBA, deflate, adaptive filtering, no interlace
        appendChunk("IHDR", header[...], to: &png)
        let data = compressed[..<Int(compressedLength)]
        var start = data.startIndex
        repeat {
            let end = min(start + (1 << 20), data.endIndex)
            appendChunk("IDAT", data[start..<end], to: &png)
            start = end
        } while start < data.endIndex
        appendChunk("IEND", [][...], to: &png)
        return png
    }

    /// Filters one row with PNG filter `type` (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth)
    /// into `out`, returning the sum of the filtered bytes taken as signed magnitudes (the
    /// usual heuristic); stops early, returning `limit`, once the sum reaches `limit`.
    /// `previous` is the row above (all zeros for the first row).
    private static func filter(_ type: UInt8, row: UnsafePointer<UInt8>, previous: UnsafePointer<UInt8>,
                               count: Int, into out: UnsafeMutablePointer<UInt8>, limit: Int) -> Int {
        @inline(__always) func predict(_ i: Int) -> UInt8 {
            switch type {
            case 0: return 0
            case 1: return i >= 4 ? row[i - 4] : 0
            case 2: return previous[i]
            case 3: return UInt8((Int(i >= 4 ? row[i - 4] : 0) + Int(previous[i])) >> 1)
            default:
                let a = i >= 4 ? row[i - 4] : 0, b = previous[i], c = i >= 4 ? previous[i - 4] : 0
                let p = Int(a) + Int(b) - Int(c)
                let pa = abs(p - Int(a)), pb = abs(p - Int(b)), pc = abs(p - Int(c))
                return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
            }
        }
        var cost = 0
        var i = 0
        while i < count {
            // Check the limit once per pixel.
            for j in i..<min(i + 4, count) {
                let value = row[j] &- predict(j)
                out[j] = value
                cost += value < 128 ? Int(value) : 256 - Int(value)
            }
            if cost >= limit { return limit }
            i += 4
        }
        return cost
    }

    private static func appendBigEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    /// Appends a chunk: length, type, data, and the CRC-32 (zlib's `crc32`) of type and data.
    private static func appendChunk(_ type: String, _ data: ArraySlice<UInt8>, to png: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        appendBigEndian(UInt32(data.count), to: &png)
        png += typeBytes
        png += data
        var crc = typeBytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        crc = data.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt($0.count)) }
        appendBigEndian(UInt32(truncatingIfNeeded: crc), to: &png)
    }

    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` in base64 (RFC 4648's standard alphabet, `=` padding, no line breaks).
    /// Never fails; an empty input gives "".
    static func base64(_ bytes: [UInt8]) -> String {
        let length = (bytes.count + 2) / 3 * 4
        guard length > 0 else { return "" }
        return alphabet.withUnsafeBufferPointer { table in
            bytes.withUnsafeBufferPointer { input in
                String(unsafeUninitializedCapacity: length) { out in
                    var i = 0, o = 0
                    let whole = input.count - input.count % 3
                    while i < whole {
                        let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                        out[o] = table[Int(v >> 18)]
                        out[o + 1] = table[Int(v >> 12 & 63)]
                        out[o + 2] = table[Int(v >> 6 & 63)]
                        out[o + 3] = table[Int(v & 63)]
                        i += 3
                        o += 4
                    }
                    switch input.count - whole {
                    case 1:
                        let v = UInt32(input[i]) << 16
                        out[o] = table[Int(v >> 18)]
                        out[o + 1] = table[Int(v >> 12 & 63)]
                        out[o + 2] = UInt8(ascii: "=")
                        out[o + 3] = UInt8(ascii: "=")
                        o += 4
                    case 2:
                        let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
                        out[o] = table[Int(v >> 18)]
                        out[o + 1] = table[Int(v >> 12 & 63)]
                        out[o + 2] = table[Int(v >> 6 & 63)]
                        out[o + 3] = UInt8(ascii: "=")
                        o += 4
                    default:
                        break
                    }
                    return o
                }
            }
        }
    }
}
