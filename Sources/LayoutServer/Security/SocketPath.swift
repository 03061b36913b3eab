import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// Where layoutd listens, and getting that place ready.
public enum SocketPath {
    /// The lock files' descriptors, kept open (and locked) for the process's life.
    nonisolated(unsafe) private static var heldLocks: [Int32] = []

    /// Why the socket cannot be set up.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Creates the socket's folder (0700) if it is missing and checks that only this user
    /// (or root) can write it; takes the lock beside the socket; removes a stale socket file
    /// a dead daemon left; refuses to take over a socket a live daemon is listening on. Then
    /// binds and listens (socket file 0600).
    public static func listen(at path: String) throws(Failure) -> FileDescriptor {
        let directory = Files.directory(of: path)
        let folder = try privateFolder(directory)
        heldLocks.append(try lock(named: baseName(path) + ".lock", in: folder, shownAs: path + ".lock"))
        try removeStaleSocket(path)
        do {
            return try UnixSocket.listen(path: path)
        } catch {
            throw Failure(description: "cannot listen on \(path): \(error)")
        }
    }

    /// The socket's folder, made 0700 when missing, opened without following a symbolic
    /// link, and checked on the open descriptor: a folder, owned by this user or root, that
    /// no group and no other user may write (whoever can write it could plant the lock or
    /// the socket as a link to a file of ours, the classic /tmp symlink attack).
    static func privateFolder(_ directory: String) throws(Failure) -> FileDescriptor {
        if mkdir(directory, 0o700) != 0 {
            let code = errno
            guard code == EEXIST else {
                throw Failure(description: "cannot create the socket folder \(directory): \(Errno(code, "mkdir"))")
            }
        }
        let folder: FileDescriptor
        do {
            folder = FileDescriptor(adopting: try syscall("open \(directory)") {
                open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            })
        } catch {
            throw Failure(description: error.code == ELOOP || error.code == ENOTDIR
                ? "\(directory) is not a folder (a symbolic link or a file); remove it or choose another --socket"
                : "cannot open the socket folder \(directory): \(error)")
        }
        var info = stat()
        guard fstat(folder.rawValue, &info) == 0 else {
            throw Failure(description: "cannot inspect the socket folder \(directory): \(Errno(errno, "fstat"))")
        }
        guard info.st_uid == getuid() || info.st_uid == 0 else {
            throw Failure(description: "\(directory) belongs to uid \(info.st_uid), not to this user (\(getuid())) or root; remove it or choose another --socket")
        }
        guard info.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            let mode = String(info.st_mode & 0o7777, radix: 8)
            throw Failure(description: "\(directory) may be written by others (mode \(mode)), so a file layoutd makes there could be a link someone planted; use `chmod go-w \(directory)` or choose another --socket")
        }
        return folder
    }

    /// Opens (creating it 0600) and locks the lock file `name` in the verified `folder`,
    /// never through a symbolic link, and checks it is a plain file of ours. Held while the
    /// daemon lives: two daemons starting at once cannot both decide the socket is stale.
    static func lock(named name: String, in folder: borrowing FileDescriptor, shownAs shown: String) throws(Failure) -> Int32 {
        let lock = openat(folder.rawValue, name, O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard lock >= 0 else {
            let code = errno
            throw Failure(description: code == ELOOP
                ? "\(shown) is a symbolic link; layoutd never writes through one: remove it"
                : "cannot open the lock file \(shown): \(Errno(code, "open"))")
        }
        var info = stat()
        guard fstat(lock, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid() else {
            close(lock)
            throw Failure(description: "\(shown) is not a plain file of this user's; remove it")
        }
        let locked: Int32?
        do { locked = try nonBlockingSyscall("flock") { flock(lock, LOCK_EX | LOCK_NB) } } catch {
            close(lock)
            throw Failure(description: "cannot lock \(shown): \(error)")
        }
        guard locked != nil else {
            close(lock)
            throw Failure(description: "another layoutd is already running on \(shown.dropLast(5)) (it holds \(shown))")
        }
        return lock
    }

    /// Removes a socket file left by a dead daemon (nobody accepts on it); fails when a live
    /// daemon listens there.
    static func removeStaleSocket(_ path: String) throws(Failure) {
        guard Files.exists(path) else { return }
        do {
            var probe = try UnixSocket.connect(path: path)
            probe.close()
            throw Failure(description: "another layoutd is already listening on \(path)")
        } catch let error as Errno {
            guard error.code == ECONNREFUSED || error.code == ENOENT else {
                throw Failure(description: "\(path) exists and cannot be probed: \(error)")
            }
            Log.info("removing stale socket \(path)")
            unlink(path)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "\(error)")
        }
    }

    static func baseName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
