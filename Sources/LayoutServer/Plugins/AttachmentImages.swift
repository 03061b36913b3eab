import Synchronization

/// The images attachments show in rendered pictures: attachment providers declare them at
/// `init` from their configuration (`register_image`: a value and the PNG file it shows), the
/// host reads and decodes each once, and renderers ask for them by value (`attachment_image`).
/// No request ever names a file here: only a plugin's `init`, which sees the configuration,
/// can register, and a request only names values. One set per plugin load (a reload makes a
/// new one); thread-safe.
final class AttachmentImages: Sendable {
    /// Largest file read, in bytes, and largest side decoded, in pixels.
    static let maxFileBytes = 1 << 20
    static let maxSide = 1024
    /// Most decoded bytes kept for one plugin load; images past it are refused.
    static let maxTotalBytes = 64 << 20

    /// Relative files are relative to this folder (the configuration file's).
    let base: String
    /// False in a plugin's probe: registrations are accepted without opening anything.
    let opensFiles: Bool
    private let state = Mutex<(images: [String: RGBAImage], paths: [String: String], bytes: Int)>(([:], [:], 0))

    init(base: String, opensFiles: Bool = true) {
        self.base = base
        self.opensFiles = opensFiles
    }

    /// Reads and decodes `file` as the image of value `name`; nil when kept (or when
    /// probing), else why not (for a log line: drawn as a placeholder).
    func register(name: String, file: String) -> String? {
        guard opensFiles else { return nil }
        guard !name.isEmpty, name.utf8.count <= 4096, !file.isEmpty else { return "an empty name or file, or a name over 4096 bytes" }
        // Joined, not resolved: resolving would follow a link that O_NOFOLLOW is to refuse.
        let path = file.hasPrefix("/") ? file : "\(base)/\(file)"
        // The same name again: the first file stays (said only when it is another file).
        func again(_ known: String) -> String? {
            known == path ? nil : "\"\(name)\" is already registered as \(known) (the first registration is kept)"
        }
        if let known = state.withLock({ $0.paths[name] }) { return again(known) }
        let image: RGBAImage
        do {
            let bytes = try Files.readRegular(path, limit: Self.maxFileBytes)
            image = try PNGDecoder().decode(bytes, maxSide: Self.maxSide)
        } catch {
            return "image \(path) for \"\(name)\": \(error)"
        }
        return state.withLock { s in
            if let known = s.paths[name] { return again(known) }
            guard s.bytes + image.pixels.count <= Self.maxTotalBytes else {
                return "image \(path) for \"\(name)\": the images registered already take \(s.bytes) of the \(Self.maxTotalBytes) bytes kept"
            }
            s.images[name] = image
            s.paths[name] = path
            s.bytes += image.pixels.count
            return nil
        }
    }

    /// The image registered under `name`, or nil.
    func image(named name: String) -> RGBAImage? { state.withLock { $0.images[name] } }
}
