import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// Where layoutd listens, and getting that place ready.
public enum SocketPath {
    /// The lock file's descriptor, kept open (and locked) for the process's life.
    nonisolated(unsafe) private static var heldLock: Int32 = -1

    /// Why the socket cannot be set up.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Creates the socket's folder (0700) if it is missing and checks it is a real folder of
    /// ours; removes a stale socket file a dead daemon left; refuses to take over a socket a
    /// live daemon is listening on. Then binds and listens (socket file 0600).
    public static func listen(at path: String) throws(Failure) -> FileDescriptor {
        let directory = Files.directory(of: path)
        if mkdir(directory, 0o700) != 0 {
            let code = errno
            guard code == EEXIST else {
                throw Failure(description: "cannot create the socket folder \(directory): \(Errno(code, "mkdir"))")
            }
        }
        var info = stat()
        guard lstat(directory, &info) == 0 else {
            throw Failure(description: "cannot inspect the socket folder \(directory): \(Errno(errno, "lstat"))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw Failure(description: "\(directory) is not a folder (a symbolic link or a file); remove it or choose another --socket")
        }
        if directory.hasPrefix("/tmp/layoutd-"), info.st_uid != getuid() {
            throw Failure(description: "\(directory) belongs to uid \(info.st_uid), not to this user (\(getuid())); remove it or choose another --socket")
        }
        // A lock beside the socket, held while the daemon lives: two daemons starting at once
        // cannot both decide the socket is stale.
        let lock = open(path + ".lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard lock >= 0 else {
            throw Failure(description: "cannot open the lock file \(path).lock: \(Errno(errno, "open"))")
        }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(lock)
            throw Failure(description: code == EWOULDBLOCK
                ? "another layoutd is already running on \(path) (it holds \(path).lock)"
                : "cannot lock \(path).lock: \(Errno(code, "flock"))")
        }
        heldLock = lock
        if Files.exists(path) {
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
        do {
            return try UnixSocket.listen(path: path)
        } catch {
            throw Failure(description: "cannot listen on \(path): \(error)")
        }
    }
}
