#if canImport(Glibc)
import Glibc
#endif

/// Starts a detached POSIX thread running `body`, with a stack of `stackBytes`. Fails with the
/// pthread error code.
public func spawnDetachedThread(stackBytes: Int = 1 << 20, _ body: @escaping @Sendable () -> Void) throws(Errno) {
    final class Box { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    pthread_attr_setstacksize(&attributes, stackBytes)
    let rc = pthread_create(&thread, &attributes, { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        return nil
    }, context)
    if rc != 0 {
        Unmanaged<Box>.fromOpaque(context).release()
        throw Errno(rc, "pthread_create")
    }
}
