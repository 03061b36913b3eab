import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// The folder of the catalog's pages (HTML, CSS, JavaScript), and the only files the catalog
/// serves: a request's path is checked name by name, and every step is opened without
/// following a symbolic link, so no request reaches a file outside it.
struct AssetFolder: Sendable {
    let path: String

    /// Largest file served; the assets are a few kilobytes each.
    static let maxFileBytes = 4 << 20

    /// Where the pages are: `$LAYOUTD_CATALOG_DIR`, else `<executable>/../share/layoutd/catalog`
    /// (installed), else `catalog/` of the source tree whose `.build` holds the executable.
    /// nil, with the places tried, when none of them is a folder with an `index.html`.
    static func locate(environment: String?, executable: String?) -> Result<AssetFolder, LocateFailure> {
        var tried: [String] = []
        if let environment, !environment.isEmpty {
            if isCatalog(environment) { return .success(AssetFolder(path: environment)) }
            return .failure(LocateFailure(tried: ["\(environment) ($LAYOUTD_CATALOG_DIR)"]))
        }
        guard let executable else { return .failure(LocateFailure(tried: ["/proc/self/exe: unreadable"])) }
        let binFolder = directory(of: executable)
        let installed = "\(directory(of: binFolder))/share/layoutd/catalog"
        if isCatalog(installed) { return .success(AssetFolder(path: installed)) }
        tried.append(installed)
        var folder = binFolder
        while folder != "/", !folder.isEmpty {
            if folder.hasSuffix("/.build") {
                let source = "\(directory(of: folder))/catalog"
                if isCatalog(source) { return .success(AssetFolder(path: source)) }
                tried.append(source)
                break
            }
            folder = directory(of: folder)
        }
        return .failure(LocateFailure(tried: tried))
    }

    struct LocateFailure: Error {
        var tried: [String]
    }

    /// The running executable's path, from /proc/self/exe.
    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func isCatalog(_ folder: String) -> Bool {
        var info = stat()
        return stat("\(folder)/index.html", &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The names of the file a request path (`/`, `/pages/basics.js`) names, checked: each
    /// percent-decoded name made only of letters, digits, `.`, `_` and `-`, not starting
    /// with a dot (so no `..` and no hidden file); a path ending in `/` names its
    /// `index.html`. nil for any other path.
    static func names(of requestPath: String) -> [String]? {
        guard let decoded = percentDecoded(requestPath), decoded.hasPrefix("/") else { return nil }
        var names = decoded.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if names.last == "" { names[names.count - 1] = "index.html" }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-".utf8)
        for name in names {
            guard !name.isEmpty, !name.hasPrefix("."), name.utf8.allSatisfy({ allowed.contains($0) }) else { return nil }
        }
        return names
    }

    /// `%XX` escapes decoded (RFC 3986 §2.1); nil for a malformed escape.
    static func percentDecoded(_ text: String) -> String? {
        var out: [UInt8] = []
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == UInt8(ascii: "%") else { out.append(byte); continue }
            guard let high = bytes.next().flatMap(hexValue), let low = bytes.next().flatMap(hexValue) else { return nil }
            out.append(high << 4 | low)
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
