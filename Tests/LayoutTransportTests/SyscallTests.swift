import LayoutTransport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct SyscallTests {
    /// A call a signal interrupted (EINTR) is made again, not reported.
    @Test func anInterruptedCallIsRetried() throws {
        var calls = 0
        let result = try nonBlockingSyscall("test") { () -> Int32 in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(result == 7)
        #expect(calls == 3)
    }

    /// A non-blocking socket with nothing to read: nil (would block), no error.
    @Test func aCallThatWouldBlockIsNil() throws {
        let (ours, theirs) = try socketPair()
        let a = FileDescriptor(adopting: ours)
        let b = FileDescriptor(adopting: theirs)
        try a.setNonBlocking()
        var buffer = [UInt8](repeating: 0, count: 16)
        let read = try buffer.withUnsafeMutableBytes { try UnixSocket.receiveNow(a, into: $0) }
        #expect(read == nil)
        #expect(b.rawValue >= 0)
    }

    /// Any other errno is thrown, with what was being done.
    @Test func otherErrorsAreThrownWithTheOperation() {
        #expect(throws: Errno(EBADF, "read -1")) {
            try nonBlockingSyscall("read -1") { () -> Int in
                var byte: UInt8 = 0
                return Glibc.read(-1, &byte, 1)
            }
        }
    }

    /// `syscall` reports a call that would block as an error whose `wouldBlock` is set.
    @Test func syscallThrowsWouldBlock() {
        do {
            try syscall("test") { () -> Int32 in
                errno = EAGAIN
                return -1
            }
            Issue.record("no error thrown")
        } catch {
            #expect(error.wouldBlock)
        }
    }
}
