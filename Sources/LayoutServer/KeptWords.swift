import LayoutEngine
import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// The shape cache kept across restarts (`ServerConfiguration.shapeCacheFile`): written at a
/// clean stop, read back at start before READY, so that a restarted daemon answers text it
/// had seen without shaping its words again.
extension LayoutService {
    /// What a kept-words file must have been written by, beside HarfBuzz and the fonts: this
    /// version and build of layoutd (the executable's size and modification time), so that
    /// a rebuilt or upgraded daemon, which may shape otherwise, shapes its words afresh.
    static let keptWordsStamp: String = {
        var build = "unknown build"
        var info = stat()
        if let executable = Files.executablePath(), stat(executable, &info) == 0 {
            build = "build \(info.st_size)-\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
        return "layoutd \(serverVersion), \(build)"
    }()

    /// Reads the kept-words file at `path` into the engine's shape cache, and logs what came
    /// of it: none yet (first start), read back, or not used and why (another layoutd or
    /// HarfBuzz, changed fonts, a damaged file). Never fails: the cache then starts empty.
    public func restoreKeptWords(from path: String) {
        let bytes: [UInt8]
        do {
            bytes = try Files.read(path, limit: TextLayoutEngine.maxKeptWordsFileBytes)
        } catch let error as Errno where error.code == ENOENT {
            Log.info("kept words: none yet at \(path) (written at a clean stop)")
            return
        } catch {
            Log.warning("kept words: cannot read \(error); starting without them")
            return
        }
        do {
            let started = Statistics.now()
            let restored = try engine.restoreKeptWords(bytes, stamp: Self.keptWordsStamp)
            let milliseconds = Int(((Statistics.now() - started) * 1000).rounded())
            Log.info("kept words: \(restored.kept) read back from \(path) in \(milliseconds) ms"
                     + (restored.skipped > 0 ? " (\(restored.skipped) skipped: face gone or past the cache's size)" : ""))
        } catch {
            switch error {
            case .otherShaper, .fontsChanged:
                Log.info("kept words at \(path) not used: \(error); starting without them")
            case .notAKeptWordsFile, .damaged:
                Log.warning("kept words at \(path) not used: \(error); starting without them (it is replaced at the next clean stop)")
            }
        }
    }

    /// Writes the engine's shape cache as the kept-words file at `path` (whole or not at all,
    /// mode 0600: it holds words of the text laid out), and logs it; with the cache off
    /// (`shapeCacheEntries` 0) writes nothing. Failing (a folder that
    /// is not there or not writable, a full disk), logs a warning and leaves any file there.
    public func saveKeptWords(to path: String) {
        // (With the cache off there is nothing to keep; a file there is left for a later run.)
        guard engine.shapeCache.capacity > 0 else { return }
        let bytes = engine.keptWordsFile(stamp: Self.keptWordsStamp)
        do {
            try Files.replace(path, with: bytes)
            Log.info("kept words: \(engine.shapeCache.count) written to \(path) (\(bytes.count) bytes)")
        } catch {
            Log.warning("kept words: cannot write \(error)")
        }
    }

    /// Carries the words of `old`'s shape cache over into `new`'s when both have the same
    /// fonts (a reload that changed no font), through the kept-words format in memory.
    static func carryKeptWords(from old: TextLayoutEngine, to new: TextLayoutEngine) {
        guard old.fonts.fingerprint == new.fonts.fingerprint, new.shapeCache.capacity > 0 else { return }
        do {
            let restored = try new.restoreKeptWords(old.keptWordsFile(stamp: keptWordsStamp), stamp: keptWordsStamp)
            Log.info("reload: \(restored.kept) shaped words carried over (the fonts did not change)")
        } catch {
            Log.warning("reload: shaped words not carried over: \(error)")
        }
    }
}
