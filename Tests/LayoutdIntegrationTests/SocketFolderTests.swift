import Foundation
import Testing

/// The socket's folder must be one only layoutd's user (or root) can write: anyone else who
/// can write it could plant the lock file or the socket as a link to a file of that user's.
@Suite struct SocketFolderTests {
    /// Starts layoutd on `folder/layoutd.sock` and waits for it to exit (it must refuse):
    /// its exit status and standard error.
    func refusedStart(in folder: String) throws -> (status: Int32, log: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Daemon.binary())
        process.arguments = ["--socket", "\(folder)/layoutd.sock", "--config", "\(repositoryRoot)/config/layoutd.json"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, log)
    }

    @Test(arguments: [0o777, 0o770, 0o722])
    func aFolderOthersMayWriteIsRefused(mode: Int) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(chmod(folder, mode_t(mode)) == 0)
        let (status, log) = try refusedStart(in: folder)
        #expect(status != 0)
        #expect(log.contains("may be written by others"), "\(log)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/layoutd.sock.lock"), "nothing is made there")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/layoutd.sock"))
    }

    @Test func aLockPlantedAsALinkIsNeverFollowed() throws {
        let folder = try temporaryFolder()
        let elsewhere = try temporaryFolder()
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: elsewhere)
        }
        let target = "\(elsewhere)/victim"
        #expect(symlink(target, "\(folder)/layoutd.sock.lock") == 0)
        let (status, log) = try refusedStart(in: folder)
        #expect(status != 0)
        #expect(log.contains("is a symbolic link"), "\(log)")
        #expect(!FileManager.default.fileExists(atPath: target), "the link's target was not created")
    }

    @Test func aPrivateFolderIsServed() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        var info = stat()
        #expect(lstat(daemon.socketPath + ".lock", &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
        #expect(try daemon.connect().result("ping")["pong"] == true)
    }
}
