import LayoutEngine

/// The repository's root, from this file's path.
public let repositoryRoot: String = {
    var path = #filePath
    for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
    return path
}()

/// One engine for all in-process tests, on the pinned fonts (config/fonts.conf), so results
/// do not depend on the machine's other fonts.
public let sharedEngine: TextLayoutEngine = {
    do {
        return TextLayoutEngine(fonts: try FontSystem(fontConfigPath: "\(repositoryRoot)/config/fonts.conf"))
    } catch {
        preconditionFailure("pinned fonts unavailable (run scripts/setup): \(error)")
    }
}()
