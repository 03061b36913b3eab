import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// Small file-system helpers over POSIX calls.
public enum Files {
    /// The whole file at `path`, capped at `limit` bytes. Fails with the errno of open/read.
    public static func read(_ path: String, limit: Int = 16 << 20) throws -> [UInt8] {
        let fd = FileDescriptor(adopting: try syscall("open \(path)") { open(path, O_RDONLY | O_CLOEXEC) })
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try chunk.withUnsafeMutableBytes { (raw) throws -> Int in
                try syscall("read \(path)") { Glibc.read(fd.rawValue, raw.baseAddress, raw.count) }
            }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > limit { throw Errno(EFBIG, "read \(path)") }
        }
    }

    /// The whole regular file at `path`, opened without following a symbolic link in its last
    /// component (`O_NOFOLLOW`: a link there fails with ELOOP), at most `limit` bytes (larger
    /// fails with EFBIG before anything is read). For files a configuration names that
    /// others might swap for a link to something else. `check` may refuse the file by its
    /// status (of the descriptor opened, so it is the file read).
    public static func readRegular(_ path: String, limit: Int, check: ((stat) throws(Errno) -> Void)? = nil) throws -> [UInt8] {
        let raw: Int32
        do {
            raw = try syscall("open \(path)") { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) }
        } catch {
            throw error.code == ELOOP ? Errno(ELOOP, "open \(path): it is a symbolic link, which is not followed (name the file itself)") : error
        }
        let fd = FileDescriptor(adopting: raw)
        var st = stat()
        _ = try syscall("stat \(path)") { fstat(fd.rawValue, &st) }
        guard st.st_mode & S_IFMT == S_IFREG else { throw Errno(EINVAL, "open \(path): not a regular file, so") }
        guard st.st_size <= limit else { throw Errno(EFBIG, "read \(path) (\(st.st_size) bytes, over \(limit))") }
        try check?(st)
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var done = 0
        while done < bytes.count {
            let n = try bytes.withUnsafeMutableBytes { (raw) throws -> Int in
                try syscall("read \(path)") { Glibc.read(fd.rawValue, raw.baseAddress! + done, raw.count - done) }
            }
            if n == 0 { break }
            done += n
        }
        return Array(bytes[0..<done])
    }

    /// Writes `bytes` as the file at `path`, whole or not at all: into a new file beside it
    /// (mode `mode`), flushed to disk, then renamed over it. Fails with the errno of the
    /// call at fault (the new file removed).
    public static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o600) throws {
        let temporary = "\(path).\(getpid()).new"
        do {
            let fd = FileDescriptor(adopting: try syscall("create \(temporary)") {
                open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
            })
            var written = 0
            while written < bytes.count {
                written += try bytes.withUnsafeBytes { raw in
                    try syscall("write \(temporary)") { Glibc.write(fd.rawValue, raw.baseAddress! + written, raw.count - written) }
                }
            }
            _ = try syscall("fsync \(temporary)") { fsync(fd.rawValue) }
            _ = try syscall("rename \(temporary) to \(path)") { rename(temporary, path) }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// The folder part of a path ("." when there is none).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `path` resolved against `base` when relative, made absolute (libraries such as
    /// fontconfig resolve relative paths against folders of their own, not ours).
    public static func resolve(_ path: String, relativeTo base: String) -> String {
        let joined = path.hasPrefix("/") ? path : "\(base)/\(path)"
        return absolute(joined)
    }

    /// `path` made absolute against the working folder, with symbolic links resolved when
    /// it exists.
    public static func absolute(_ path: String) -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/" + path
    }

    /// The running executable's path, from /proc/self/exe.
    public static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
