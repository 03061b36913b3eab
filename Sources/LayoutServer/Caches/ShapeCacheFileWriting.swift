import LayoutEngine
import Synchronization
import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// The shape cache kept across restarts (`ServerConfiguration.shapeCacheFile`): written at a
/// clean stop and every `shapeCacheWriteSeconds` while new words are kept, read back at start
/// before READY, so that a restarted daemon answers text it had seen without shaping its
/// words again.
extension LayoutService {
    /// What a shape cache file must have been written by, beside HarfBuzz and the fonts: this
    /// version and build of layoutd (the executable's size and modification time), so that
    /// a rebuilt or upgraded daemon, which may shape otherwise, shapes its words afresh.
    static let shapeCacheFileStamp: String = {
        var build = "unknown build"
        var info = stat()
        if let executable = Files.executablePath(), stat(executable, &info) == 0 {
            build = "build \(info.st_size)-\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
        return "layoutd \(serverVersion), \(build)"
    }()

    /// Reads the shape cache file at `path` into the engine's shape cache, and logs what came
    /// of it: none yet (first start), read back, or not used and why (another layoutd or
    /// HarfBuzz, changed fonts, a damaged file). Never fails: the cache then starts empty.
    public func restoreShapeCacheFile(from path: String) {
        let bytes: [UInt8]
        do {
            bytes = try Files.read(path, limit: TextLayoutEngine.maxShapeCacheFileBytes)
        } catch let error as Errno where error.code == ENOENT {
            Log.info("shape cache file: none yet at \(path) (written at a clean stop, and while running)")
            return
        } catch {
            Log.warning("shape cache file: cannot read \(error); starting without it")
            return
        }
        do {
            let started = MonotonicClock.now()
            let restored = try engine.restoreShapeCacheFile(bytes, stamp: Self.shapeCacheFileStamp)
            let milliseconds = millisecondsSince(started)
            Log.info("shape cache file: \(restored.kept) words read back from \(path) in \(milliseconds) ms"
                     + (restored.skipped > 0 ? " (\(restored.skipped) skipped: face gone or past the cache's size)" : ""))
        } catch {
            switch error {
            case .otherShaper, .fontsChanged:
                Log.info("shape cache file \(path) not used: \(error); starting without it")
            case .notAShapeCacheFile, .damaged:
                Log.warning("shape cache file \(path) not used: \(error); starting without it (it is replaced at the next clean stop)")
            }
        }
    }

    /// Writes the engine's shape cache as the shape cache file at `path` (whole or not at all,
    /// mode 0600: it holds words of the text laid out), and logs it. `final`: the write at a
    /// clean stop, after which no other is made (a periodic one then would be cut off by the
    /// exit); otherwise (`startWritingShapeCacheFile`) only when words were kept since the last
    /// write. With the cache off (`shapeCacheEntries` 0) writes nothing. Writes one at a
    /// time. Failing (a folder that is not there or not writable, a full disk), logs a
    /// warning and leaves any file there.
    public func saveShapeCacheFile(to path: String, final: Bool) {
        shapeCacheFileWrites.withLock { state in
            let engine = self.engine
            // (With the cache off there is nothing to keep; a file there is left for a later run.)
            guard !state.stopped, engine.shapeCache.capacity > 0 else { return }
            if final { state.stopped = true }
            // Words are kept on misses and read back: unchanged counts, unchanged words.
            let version = [ObjectIdentifier(engine).hashValue, engine.shapeCache.lookupCounts.misses, engine.shapeCache.wordsRestored]
            if !final, version == state.written { return }
            let started = MonotonicClock.now()
            let bytes = engine.shapeCacheFile(stamp: Self.shapeCacheFileStamp)
            do {
                try Files.replace(path, with: bytes)
                state.written = version
                let milliseconds = millisecondsSince(started)
                let line = "shape cache file: \(engine.shapeCache.count) words written to \(path) (\(bytes.count) bytes) in \(milliseconds) ms"
                if final { Log.info(line) } else { Log.debug(line) }
            } catch {
                Log.warning("shape cache file: cannot write \(error)")
            }
        }
    }

    /// Writes the shape cache file (the configuration's `shapeCacheFile` at the time) every
    /// `seconds` while words are being kept, on a thread of its own, so that a daemon that
    /// does not stop cleanly (killed, crashed) still leaves its recent words. Fails only to
    /// start the thread (logged).
    public func startWritingShapeCacheFile(every seconds: Double) {
        do {
            try spawnDetachedThread { [self] in
                while true {
                    // (usleep takes at most ~71 minutes at a time.)
                    var remaining = seconds
                    while remaining > 0 {
                        let stretch = min(remaining, 3600)
                        usleep(UInt32(stretch * 1_000_000))
                        remaining -= stretch
                    }
                    if let file = configuration.shapeCacheFile { saveShapeCacheFile(to: file, final: false) }
                }
            }
        } catch {
            Log.warning("shape cache file: cannot start the thread that writes it: \(error)")
        }
    }

    /// Carries the words of `old`'s shape cache over into `new`'s when both have the same
    /// fonts (a reload that changed no font), through the shape cache file format in memory.
    static func carryShapeCache(from old: TextLayoutEngine, to new: TextLayoutEngine) {
        guard old.fonts.fingerprint == new.fonts.fingerprint, new.shapeCache.capacity > 0 else { return }
        do {
            let restored = try new.restoreShapeCacheFile(old.shapeCacheFile(stamp: shapeCacheFileStamp), stamp: shapeCacheFileStamp)
            Log.info("reload: \(restored.kept) shaped words carried over (the fonts did not change)")
        } catch {
            Log.warning("reload: shaped words not carried over: \(error)")
        }
    }
}

/// The shape cache file's writes, one at a time: whether the final one (at a clean stop) was
/// made, and what the last written held (engine, misses, words read back).
private let shapeCacheFileWrites = Mutex<(stopped: Bool, written: [Int])>((false, []))

/// Whole milliseconds from `started` (a `MonotonicClock.now()` time) to now, for log lines.
private func millisecondsSince(_ started: Double) -> Int { Int(((MonotonicClock.now() - started) * 1000).rounded()) }
