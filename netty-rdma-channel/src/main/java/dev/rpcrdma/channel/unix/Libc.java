package dev.rpcrdma.channel.unix;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallContextCache;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.LastError;
import com.kenai.jffi.Library;
import com.kenai.jffi.MemoryIO;
import com.kenai.jffi.Type;
import io.netty.channel.ChannelException;
import io.netty.channel.unix.FileDescriptor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The libc calls of the transport (epoll, eventfd, {@code fcntl}, {@code poll}, {@code strerror}), called through jffi
 * on the function's address with errno saved; the ones a loop makes per wake-up allocate nothing.
 */
public final class Libc {
    public static final String SONAME = "libc.so.6";
    /** errno: interrupted system call. */
    public static final int EINTR = 4;
    /** errno: try again (non-blocking fd not ready). */
    public static final int EAGAIN = 11;
    /** errno: invalid argument. */
    public static final int EINVAL = 22;
    /** {@code poll(2)} and {@code epoll} event: readable. */
    public static final int POLLIN = 0x1;
    private static final int EPOLLIN = 0x1;
    private static final int EPOLL_CTL_ADD = 1;
    private static final int EPOLL_CTL_DEL = 2;
    private static final int EPOLL_CLOEXEC = 0x80000;
    private static final int EFD_NONBLOCK = 0x800;
    private static final int EFD_CLOEXEC = 0x80000;
    public static final int F_GETFL = 3;
    public static final int F_SETFL = 4;
    public static final int O_NONBLOCK = 0x800;
    /** {@code sizeof(struct pollfd)}. */
    private static final int POLLFD_SIZE = 8;
    /** {@code struct epoll_event} is packed on x86_64 only (glibc's {@code __EPOLL_PACKED}). */
    private static final boolean EPOLL_PACKED = "amd64".equals(System.getProperty("os.arch"))
            || "x86_64".equals(System.getProperty("os.arch"));
    /** {@code sizeof(struct epoll_event)}. */
    public static final int EPOLL_EVENT_SIZE = EPOLL_PACKED ? 12 : 16;
    /** {@code offsetof(struct epoll_event, data)}. */
    public static final int EPOLL_DATA_OFFSET = EPOLL_PACKED ? 4 : 8;

    private static final class Calls {
        static final Invoker INVOKER = Invoker.getInstance();
        static final MemoryIO IO = MemoryIO.getInstance();
        static final CallContext INT_INT = context(Type.SINT32, Type.SINT32);
        static final CallContext INT_INT_INT = context(Type.SINT32, Type.SINT32, Type.SINT32);
        static final CallContext INT_INT_ULONG = context(Type.SINT32, Type.SINT32, Type.UINT64);
        static final CallContext INT_INT_PTR = context(Type.SINT32, Type.SINT32, Type.POINTER);
        static final CallContext INT_PTR_ULONG_INT = context(Type.SINT32, Type.POINTER, Type.UINT64, Type.SINT32);
        static final CallContext INT_INT_INT_INT = context(Type.SINT32, Type.SINT32, Type.SINT32, Type.SINT32);
        static final CallContext INT_INT_INT_INT_PTR = context(Type.SINT32, Type.SINT32, Type.SINT32, Type.SINT32,
                Type.POINTER);
        static final CallContext INT_INT_PTR_INT_INT = context(Type.SINT32, Type.SINT32, Type.POINTER, Type.SINT32,
                Type.SINT32);
        static final CallContext PTR_INT = CallContextCache.getInstance().getCallContext(Type.POINTER,
                new Type[] {Type.SINT32}, CallingConvention.DEFAULT, false);
        /** {@code epoll_wait}'s shape without saving errno. */
        static final CallContext INT_INT_PTR_INT_INT_NO_ERRNO = CallContextCache.getInstance().getCallContext(
                Type.SINT32, new Type[] {Type.SINT32, Type.POINTER, Type.SINT32, Type.SINT32},
                CallingConvention.DEFAULT, false);
        static final long EPOLL_CREATE1 = symbol("epoll_create1");
        static final long EPOLL_CTL = symbol("epoll_ctl");
        static final long EPOLL_WAIT = symbol("epoll_wait");
        static final long EVENTFD = symbol("eventfd");
        static final long EVENTFD_READ = symbol("eventfd_read");
        static final long EVENTFD_WRITE = symbol("eventfd_write");
        static final long FCNTL = symbol("fcntl");
        static final long POLL = symbol("poll");
        static final long STRERROR = symbol("strerror");
        /** Where {@link #eventFdRead} puts the counter, which nobody reads: threads may share it. */
        static final long DISCARD = IO.allocateMemory(8, true);

        private static CallContext context(Type result, Type... parameters) {
            return CallContextCache.getInstance().getCallContext(result, parameters, CallingConvention.DEFAULT, true);
        }

        private static long symbol(String name) {
            long address = Library.getCachedInstance(SONAME, Library.LAZY).getSymbolAddress(name);
            if (address == 0) {
                throw new UnsatisfiedLinkError("no symbol " + name + " in " + SONAME);
            }
            return address;
        }
    }

    private Libc() {
    }

    /** The errno of this thread's last call through this class. */
    public static int errno() {
        return LastError.getInstance().get();
    }

    /** {@code epoll_create1(EPOLL_CLOEXEC)}. */
    public static FileDescriptor newEpollCreate() {
        int fd = (int) Calls.INVOKER.invokeN1(Calls.INT_INT, Calls.EPOLL_CREATE1, EPOLL_CLOEXEC);
        if (fd < 0) {
            throw new ChannelException("epoll_create1 failed: " + strerror(errno()));
        }
        return new FileDescriptor(fd);
    }

    /** Watches {@code fd} for readability (level-triggered), with the fd as the event's data. */
    public static void epollCtlAdd(int epollFd, int fd) throws IOException {
        epollCtl(EPOLL_CTL_ADD, epollFd, fd);
    }

    public static void epollCtlDel(int epollFd, int fd) throws IOException {
        epollCtl(EPOLL_CTL_DEL, epollFd, fd);
    }

    private static void epollCtl(int op, int epollFd, int fd) throws IOException {
        long event = Calls.IO.allocateMemory(EPOLL_EVENT_SIZE, true);
        try {
            Calls.IO.putInt(event, EPOLLIN);
            Calls.IO.putInt(event + EPOLL_DATA_OFFSET, fd);
            check("epoll_ctl", (int) Calls.INVOKER.invokeN4(Calls.INT_INT_INT_INT_PTR, Calls.EPOLL_CTL, epollFd, op,
                    fd, event));
        } finally {
            Calls.IO.freeMemory(event);
        }
    }

    /**
     * {@code epoll_wait} into {@code maxEvents} events at {@code events}: the number of ready fds, or -1 with the
     * errno in {@link #errno()}. Allocates nothing.
     */
    public static int epollWait(int epollFd, long events, int maxEvents, int timeoutMillis) {
        return (int) Calls.INVOKER.invokeN4(Calls.INT_INT_PTR_INT_INT, Calls.EPOLL_WAIT, epollFd, events, maxEvents,
                timeoutMillis);
    }

    /**
     * {@link #epollWait} without saving errno (jffi saves it into thread-local data it looks up per call): the
     * number of ready fds, or -1, whose errno is lost (ask again with {@link #epollWait}).
     */
    public static int epollWaitNoErrno(int epollFd, long events, int maxEvents, int timeoutMillis) {
        return (int) Calls.INVOKER.invokeN4(Calls.INT_INT_PTR_INT_INT_NO_ERRNO, Calls.EPOLL_WAIT, epollFd, events,
                maxEvents, timeoutMillis);
    }

    /** A non-blocking, close-on-exec eventfd. */
    public static FileDescriptor newEventFd() {
        int fd = (int) Calls.INVOKER.invokeN2(Calls.INT_INT_INT, Calls.EVENTFD, 0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (fd < 0) {
            throw new ChannelException("eventfd failed: " + strerror(errno()));
        }
        return new FileDescriptor(fd);
    }

    /**
     * Adds {@code value} to an eventfd's counter; a counter that would overflow is read first, as Netty's epoll
     * transport does. Any thread; allocates nothing.
     */
    public static void eventFdWrite(int fd, long value) {
        for (;;) {
            if ((int) Calls.INVOKER.invokeN2(Calls.INT_INT_ULONG, Calls.EVENTFD_WRITE, fd, value) == 0) {
                return;
            }
            int errno = errno();
            if (errno != EAGAIN) {
                throw new ChannelException("eventfd_write failed: " + strerror(errno));
            }
            eventFdRead(fd);
        }
    }

    /**
     * Resets a non-blocking eventfd's counter; nothing when it is 0 or another thread read it first. Any thread;
     * allocates nothing.
     */
    public static void eventFdRead(int fd) {
        Calls.INVOKER.invokeN2(Calls.INT_INT_PTR, Calls.EVENTFD_READ, fd, Calls.DISCARD);
    }

    /** {@code fcntl(fd, cmd, arg)}: its result, or -1 with the errno in {@link #errno()}. */
    public static int fcntl(int fd, int cmd, int arg) {
        return (int) Calls.INVOKER.invokeN3(Calls.INT_INT_INT_INT, Calls.FCNTL, fd, cmd, arg);
    }

    /**
     * {@code poll(2)} on one fd, again after {@code EINTR}: its revents, 0 on timeout, or -1 with the errno in
     * {@link #errno()}. Blocks up to {@code timeoutMillis} (-1: forever).
     */
    public static int poll(int fd, int events, int timeoutMillis) {
        long pollfd = Calls.IO.allocateMemory(POLLFD_SIZE, true);
        try {
            Calls.IO.putInt(pollfd, fd);
            Calls.IO.putShort(pollfd + 4, (short) events);
            for (;;) {
                int n = (int) Calls.INVOKER.invokeN3(Calls.INT_PTR_ULONG_INT, Calls.POLL, pollfd, 1, timeoutMillis);
                if (n >= 0) {
                    return n == 0 ? 0 : Calls.IO.getShort(pollfd + 6) & 0xffff;
                }
                if (errno() != EINTR) {
                    return -1;
                }
            }
        } finally {
            Calls.IO.freeMemory(pollfd);
        }
    }

    /** The text of {@code errno}, or {@code "errno N"} if libc cannot be reached. */
    public static String strerror(int errno) {
        try {
            long s = Calls.INVOKER.invokeN1(Calls.PTR_INT, Calls.STRERROR, errno);
            return s == 0 ? "errno " + errno
                    : new String(Calls.IO.getZeroTerminatedByteArray(s), StandardCharsets.UTF_8);
        } catch (LinkageError e) {
            return "errno " + errno;
        }
    }

    private static int check(String call, int rc) throws IOException {
        if (rc < 0) {
            int errno = errno();
            throw new IOException(call + " failed: " + strerror(errno) + " (errno " + errno + ")");
        }
        return rc;
    }
}
