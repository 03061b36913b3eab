import CLayoutPlugin
import LayoutProtocol
#if canImport(Glibc)
import Glibc
#endif

/// C memory for one call into a plugin: strings, arrays and value trees the host hands over.
/// Everything allocated here is freed together when the arena is deinitialized, so a call
/// makes one arena, builds its arguments in it and lets it go after the call returns (the ABI
/// says host memory is valid only for the duration of the call). Not thread-safe: one arena
/// per call.
final class CArena {
    private var blocks: [UnsafeMutableRawPointer] = []

    deinit { for block in blocks { free(block) } }

    /// `count` zeroed elements of `T`; never nil (a zero count still gets a valid pointer).
    func allocate<T>(_ type: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        let bytes = max(1, count) * MemoryLayout<T>.stride
        guard let raw = calloc(1, bytes) else { fatalError("out of memory allocating \(bytes) bytes for a plugin call") }
        blocks.append(raw)
        return raw.bindMemory(to: T.self, capacity: max(1, count))
    }

    /// A NUL-terminated copy of `string`.
    func string(_ string: String) -> UnsafePointer<CChar> {
        var utf8 = Array(string.utf8)
        utf8.append(0)
        let p = allocate(CChar.self, count: utf8.count)
        utf8.withUnsafeBytes { UnsafeMutableRawPointer(p).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return UnsafePointer(p)
    }

    /// A NUL-terminated copy of bytes (which must be UTF-8 for the ABI), and its length.
    func bytes(_ bytes: [UInt8]) -> UnsafePointer<CChar> {
        let p = allocate(CChar.self, count: bytes.count + 1)
        bytes.withUnsafeBytes { if $0.count > 0 { UnsafeMutableRawPointer(p).copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
        return UnsafePointer(p)
    }

    /// A copy of `items` as a C array.
    func array<T>(_ items: [T]) -> UnsafePointer<T> {
        let p = allocate(T.self, count: items.count)
        for (i, item) in items.enumerated() { (p + i).initialize(to: item) }
        return UnsafePointer(p)
    }

    /// A JSON value as the ABI's read-only `layoutd_value` tree.
    func value(_ json: JSONValue) -> UnsafePointer<layoutd_value> {
        let p = allocate(layoutd_value.self, count: 1)
        p.pointee = fill(json)
        return UnsafePointer(p)
    }

    private func fill(_ json: JSONValue) -> layoutd_value {
        var v = layoutd_value()
        switch json {
        case .null: v.type = UInt32(LAYOUTD_VALUE_NULL.rawValue)
        case .bool(let b):
            v.type = UInt32(LAYOUTD_VALUE_BOOL.rawValue)
            v.number = b ? 1 : 0
        case .number(let d):
            v.type = UInt32(LAYOUTD_VALUE_NUMBER.rawValue)
            v.number = d
        case .string(let s):
            v.type = UInt32(LAYOUTD_VALUE_STRING.rawValue)
            v.string = string(s)
            v.length = s.utf8.count
        case .array(let items):
            v.type = UInt32(LAYOUTD_VALUE_ARRAY.rawValue)
            v.count = UInt32(items.count)
            let p = allocate(layoutd_value.self, count: items.count)
            for (i, item) in items.enumerated() { p[i] = fill(item) }
            v.items = UnsafePointer(p)
        case .object(let members):
            v.type = UInt32(LAYOUTD_VALUE_OBJECT.rawValue)
            v.count = UInt32(members.count)
            let p = allocate(layoutd_member.self, count: members.count)
            for (i, member) in members.enumerated() {
                p[i].key = string(member.0)
                p[i].key_length = member.0.utf8.count
                p[i].value = fill(member.1)
            }
            v.members = UnsafePointer(p)
        case .serialized(let text):
            // Only responses hold written JSON; should one reach a plugin, it gets the value.
            return fill((try? JSONParser.parse(text)) ?? .null)
        case .utf16(let units):
            // A request's text kept in UTF-16: plugins get strings in UTF-8.
            return fill(.string(String(decoding: units, as: UTF16.self)))
        }
        return v
    }
}

/// A message a plugin wrote into an error buffer, or a fallback.
func pluginMessage(_ buffer: [CChar], fallback: String) -> String {
    let message = buffer.withUnsafeBufferPointer { b -> String in
        guard let base = b.baseAddress, b.contains(0) else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: base, count: strlen(base)), as: UTF8.self)
    }
    return message.isEmpty ? fallback : message
}
