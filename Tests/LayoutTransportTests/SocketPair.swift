import LayoutTransport
#if canImport(Glibc)
import Glibc
#endif

/// Two connected Unix stream sockets, each to be adopted by a `FileDescriptor`.
func socketPair() throws(Errno) -> (Int32, Int32) {
    var fds: [Int32] = [-1, -1]
    try syscall("socketpair") { socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) }
    return (fds[0], fds[1])
}
