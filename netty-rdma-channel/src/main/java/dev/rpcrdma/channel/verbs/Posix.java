package dev.rpcrdma.channel.verbs;

/**
 * The libc calls needed around the verbs: {@code strerror} for error texts, {@code O_NONBLOCK} and {@code poll(2)}
 * for the file descriptors of completion channels and RDMA-CM event channels.
 */
public final class Posix {
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;
    static final int O_NONBLOCK = 0x800;
    /** {@code poll(2)} event: readable. */
    public static final int POLLIN = 0x1;
    /** errno: try again (non-blocking fd not ready). */
    public static final int EAGAIN = 11;
    /** errno: interrupted system call. */
    public static final int EINTR = 4;
    /** errno: invalid argument. */
    public static final int EINVAL = 22;

    private Posix() {
    }

    /** The text of {@code errno}, or {@code "errno N"} if libc cannot be reached. */
    public static String strerror(int errno) {
        NativeLibraries.Loaded<LibC> c = NativeLibraries.C.LIB;
        if (c.library == null) {
            return "errno " + errno;
        }
        String s = c.library.strerror(errno);
        return s == null ? "errno " + errno : s;
    }

    /** Sets {@code O_NONBLOCK} on {@code fd} (e.g. a completion channel or event channel fd before epoll). */
    public static void setNonBlocking(int fd) throws NativeCallException {
        NativeLibraries.Loaded<LibC> c = NativeLibraries.C.LIB;
        int flags = c.get().fcntl(fd, F_GETFL, 0);
        if (flags < 0) {
            throw new NativeCallException("fcntl(F_GETFL)", c.lastError());
        }
        if (c.get().fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
            throw new NativeCallException("fcntl(F_SETFL)", c.lastError());
        }
    }

    /**
     * {@code poll(2)} on one fd. Returns the revents (0 on timeout). Blocks up to {@code timeoutMs} (-1: forever).
     */
    public static int poll(int fd, int events, int timeoutMs) throws NativeCallException {
        NativeLibraries.Loaded<LibC> c = NativeLibraries.C.LIB;
        int[] pollfd = {fd, events & 0xffff};
        for (;;) {
            int n = c.get().poll(pollfd, 1, timeoutMs);
            if (n >= 0) {
                return n == 0 ? 0 : pollfd[1] >>> 16;
            }
            int errno = c.lastError();
            if (errno != EINTR) {
                throw new NativeCallException("poll", errno);
            }
        }
    }
}
