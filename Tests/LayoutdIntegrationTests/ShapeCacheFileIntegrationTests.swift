import Foundation
import Testing
import LayoutProtocol

/// The shape cache kept across restarts (`shapeCacheFile`), through the real daemon: written
/// at a clean stop, read back at the next start so that the text seen before is laid out
/// the same without shaping a word; a damaged file or other fonts start it empty and are
/// replaced at the next stop; `reload` carries the words over.
@Suite("Kept words through the daemon")
struct ShapeCacheFileIntegrationTests {
    /// A folder for a configuration naming `words` as the shape cache file (and `fonts`, the
    /// pinned fonts unless another fontconfig file is given).
    final class Setup {
        let folder: String
        var wordsPath: String { "\(folder)/words" }
        var configPath: String { "\(folder)/layoutd.json" }

        /// `writeSeconds`: `shapeCacheWriteSeconds` (0: only at a clean stop).
        init(fontConfig: String = "\(repositoryRoot)/config/fonts.conf", limits: String = "{}", writeSeconds: Double = 0) throws {
            folder = try temporaryFolder()
            try writeConfig(fontConfig: fontConfig, limits: limits, writeSeconds: writeSeconds)
        }

        func writeConfig(fontConfig: String, limits: String = "{}", writeSeconds: Double = 0) throws {
            // (Relative: resolved against the configuration's folder.)
            try #"{"fontConfig": "\#(fontConfig)", "shapeCacheFile": "words", "shapeCacheWriteSeconds": \#(writeSeconds), "limits": \#(limits)}"#
                .write(toFile: configPath, atomically: true, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }
    }

    static func shapedWords(_ client: Client) throws -> JSONValue? { try client.result("stats")["caches"]?["shapedWords"] }

    static func paragraphs() throws -> [CorpusParagraph] {
        Array(try loadCorpus().filter { ["en", "ar", "hi", "ja", "ru"].contains($0.lang) }.prefix(15))
    }

    static func layouts(_ client: Client, _ paragraphs: [CorpusParagraph]) throws -> [JSONValue] {
        try paragraphs.map { p in
            try client.result("layout", ["text": .string(p.text), "width": 320, "detail": "glyphs", "language": .string(p.lang)])
        }
    }

    @Test func aRestartedDaemonFindsTheWordsItHadShaped() throws {
        let setup = try Setup()
        let paragraphs = try Self.paragraphs()
        let first = try Daemon(configPath: setup.configPath)
        var client = try first.connect()
        let expected = try Self.layouts(client, paragraphs)
        let count = try Self.shapedWords(client)?["count"]?.intValue ?? 0
        #expect(count > 500)
        #expect(!FileManager.default.fileExists(atPath: setup.wordsPath), "written at the stop, not before")
        first.process.terminate()
        first.process.waitUntilExit()
        #expect(first.log.contains("shape cache file: \(count) words written to \(setup.wordsPath)"), "\(first.log)")
        let attributes = try FileManager.default.attributesOfItem(atPath: setup.wordsPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o600, "only the daemon's user reads the words of its text")
        first.stop()

        let second = try Daemon(configPath: setup.configPath)
        defer { second.stop() }
        client = try second.connect()
        let restored = try Self.shapedWords(client)
        #expect(restored?["restored"]?.intValue == count && restored?["count"]?.intValue == count, "\(String(describing: restored))")
        #expect(second.log.contains("shape cache file: \(count) words read back from \(setup.wordsPath) in "), "\(second.log)")
        let missesBefore = restored?["misses"]?.intValue ?? -1
        let again = try Self.layouts(client, paragraphs)
        for (p, (got, want)) in zip(paragraphs, zip(again, expected)) {
            #expect(got == want, "\(p.id): laid out otherwise from the words read back")
        }
        #expect(try Self.shapedWords(client)?["misses"]?.intValue == missesBefore, "no word shaped again")

        // `reload` (the fonts unchanged) carries them over into its new engine.
        _ = try client.result("reload")
        let reloaded = try Self.shapedWords(client)
        #expect(reloaded?["count"]?.intValue == count && reloaded?["restored"]?.intValue == count, "\(String(describing: reloaded))")
        #expect(try Self.layouts(client, paragraphs) == expected)
        #expect(try Self.shapedWords(client)?["misses"]?.intValue == reloaded?["misses"]?.intValue)
    }

    @Test func aDamagedFileIsNotUsedAndIsReplacedAtTheNextStop() throws {
        let setup = try Setup()
        try Data("LDWORDS1 but then nothing a layoutd wrote".utf8).write(to: URL(fileURLWithPath: setup.wordsPath))
        let daemon = try Daemon(configPath: setup.configPath)
        let client = try daemon.connect()
        #expect(try Self.shapedWords(client)?["restored"]?.intValue == 0)
        #expect(daemon.log.contains("shape cache file \(setup.wordsPath) not used: damaged"), "\(daemon.log)")
        let paragraphs = try Self.paragraphs()
        let expected = try Self.layouts(client, paragraphs)
        daemon.process.terminate()
        daemon.process.waitUntilExit()
        daemon.stop()

        let next = try Daemon(configPath: setup.configPath)
        defer { next.stop() }
        let again = try next.connect()
        #expect((try Self.shapedWords(again)?["restored"]?.intValue ?? 0) > 500, "the file was replaced with a good one")
        #expect(try Self.layouts(again, paragraphs) == expected)
    }

    /// With `shapeCacheWriteSeconds`, the words are also written while the daemon runs (when
    /// new ones were kept), so a daemon killed without a clean stop leaves them.
    @Test func wordsWrittenWhileRunningOutliveAKill() throws {
        let setup = try Setup(writeSeconds: 1)
        let paragraphs = try Self.paragraphs()
        let daemon = try Daemon(configPath: setup.configPath)
        let client = try daemon.connect()
        let expected = try Self.layouts(client, paragraphs)
        let count = try Self.shapedWords(client)?["count"]?.intValue ?? 0
        // Written within a period of the last word kept: waited for until a write is followed
        // by more than a period without one (on a loaded machine the words may be kept, and
        // written, over several periods).
        var written: Date?
        var quietSince = Date()
        for _ in 0..<200 {
            usleep(100_000)
            let now = try? FileManager.default.attributesOfItem(atPath: setup.wordsPath)[.modificationDate] as? Date
            if now != written {
                (written, quietSince) = (now, Date())
            } else if written != nil, Date().timeIntervalSince(quietSince) > 1.5 {
                break
            }
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: setup.wordsPath)[.size] as? Int) ?? -1
        #expect(size > 0, "written while running")
        usleep(1_500_000)   // another period: no new word, not written again
        #expect(try FileManager.default.attributesOfItem(atPath: setup.wordsPath)[.modificationDate] as? Date == written)
        kill(daemon.process.processIdentifier, SIGKILL)
        daemon.process.waitUntilExit()
        daemon.stop()

        let next = try Daemon(configPath: setup.configPath)
        defer { next.stop() }
        let again = try next.connect()
        #expect(try Self.shapedWords(again)?["restored"]?.intValue == count, "\(next.log)")
        #expect(try Self.layouts(again, paragraphs) == expected)
    }

    @Test func withTheShapeCacheOffNothingIsWritten() throws {
        let setup = try Setup(limits: #"{"shapeCacheEntries": 0}"#)
        let daemon = try Daemon(configPath: setup.configPath)
        _ = try Self.layouts(try daemon.connect(), Array(try Self.paragraphs().prefix(3)))
        daemon.process.terminate()
        daemon.process.waitUntilExit()
        #expect(!FileManager.default.fileExists(atPath: setup.wordsPath), "\(daemon.log)")
        daemon.stop()
    }

    @Test func wordsShapedWithOtherFontsAreNotUsed() throws {
        let setup = try Setup()
        let daemon = try Daemon(configPath: setup.configPath)
        _ = try Self.layouts(try daemon.connect(), try Self.paragraphs())
        daemon.process.terminate()
        daemon.process.waitUntilExit()
        daemon.stop()
        #expect(FileManager.default.fileExists(atPath: setup.wordsPath))

        // The pinned fonts without Inter: another font set (another fingerprint), so the
        // words are not trusted.
        let otherFonts = "\(setup.folder)/fonts.conf"
        let pinned = try String(contentsOfFile: "\(repositoryRoot)/config/fonts.conf", encoding: .utf8)
        try pinned.replacingOccurrences(of: "<dir>/usr/share/fonts/truetype/inter-vf</dir>", with: "")
            .write(toFile: otherFonts, atomically: true, encoding: .utf8)
        try setup.writeConfig(fontConfig: otherFonts)
        let next = try Daemon(configPath: setup.configPath)
        defer { next.stop() }
        let client = try next.connect()
        #expect(try Self.shapedWords(client)?["restored"]?.intValue == 0)
        #expect(next.log.contains("not used: the fonts changed since it was written"), "\(next.log)")
    }
}
