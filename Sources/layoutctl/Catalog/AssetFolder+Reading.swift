import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

extension AssetFolder {
    /// The response for a GET of `requestPath`: the file's bytes with its media type, or 404.
    func response(for requestPath: String) -> HTTPResponse {
        guard let names = Self.names(of: requestPath), let type = Self.mediaType(of: names[names.count - 1]) else {
            return .failure(HTTPFailure(404, "no such page: \(requestPath)"))
        }
        do {
            return HTTPResponse(status: 200, contentType: type, body: try read(names))
        } catch {
            return .failure(error.code == ENOENT || error.code == ENOTDIR || error.code == ELOOP
                ? HTTPFailure(404, "no such page: \(requestPath)")
                : HTTPFailure(500, "\(error)"))
        }
    }

    /// The bytes of the file `names` (already checked by `names(of:)`) inside the folder.
    /// Each folder on the way and the file itself are opened with O_NOFOLLOW, so a symbolic
    /// link anywhere fails (ELOOP, or ENOTDIR for a folder) instead of leading elsewhere.
    func read(_ names: [String]) throws(Errno) -> [UInt8] {
        var folder = FileDescriptor(adopting: try syscall("open \(path)") {
            open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        })
        for name in names.dropLast() {
            let parent = folder.rawValue
            folder = FileDescriptor(adopting: try syscall("open \(name)") {
                openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            })
        }
        let parent = folder.rawValue
        let file = FileDescriptor(adopting: try syscall("open \(names[names.count - 1])") {
            openat(parent, names[names.count - 1], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        })
        return try readRegularFile(file)
    }

    /// A regular file's bytes (a FIFO or device in the folder is refused as not found).
    private func readRegularFile(_ file: borrowing FileDescriptor) throws(Errno) -> [UInt8] {
        let raw = file.rawValue
        var info = stat()
        try syscall("fstat") { fstat(raw, &info) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw Errno(ENOENT, "not a regular file") }
        guard info.st_size <= Self.maxFileBytes else { throw Errno(EFBIG, "a page file over \(Self.maxFileBytes) bytes") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let n = try bytes.withUnsafeMutableBufferPointer { (buffer) throws(Errno) -> Int in
                let start = buffer.baseAddress.map { $0 + filled }
                return try syscall("read") { Glibc.read(raw, start, buffer.count - filled) }
            }
            if n == 0 { break }
            filled += n
        }
        return Array(bytes.prefix(filled))
    }

    /// The media type of a served file by its extension; nil for a kind the catalog has not.
    static func mediaType(of name: String) -> String? {
        guard let dot = name.lastIndex(of: ".") else { return nil }
        switch name[name.index(after: dot)...] {
        case "html": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js": return "text/javascript; charset=utf-8"
        case "json": return "application/json"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "txt", "md": return "text/plain; charset=utf-8"
        default: return nil
        }
    }
}
