package dev.rpcrdma.channel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.Native;
import io.netty.channel.unix.FileDescriptor;
import io.netty.util.internal.PlatformDependent;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;
import jnr.ffi.annotations.SaveError;

import java.io.IOException;

/**
 * One epoll set for an event loop: created and edited through netty-transport-native-epoll's public
 * {@code Native} API ({@code epoll_create}, {@code epoll_ctl}, eventfd); waited on with libc {@code epoll_wait}
 * through jnr-ffi, because Netty's {@code EpollEventArray} is not public. Events are read from a direct buffer laid
 * out as {@code struct epoll_event} (size and data offset from {@code Native}).
 */
final class EpollSet {
    private static final int EINTR = 4;

    /** libc {@code epoll_wait}; the events pointer is passed as a 64-bit address. */
    public interface LibC {
        @SaveError
        int epoll_wait(int epfd, long events, int maxevents, int timeout);
    }

    private static final class Holder {
        static final LibC LIBC = LibraryLoader.create(LibC.class).load("c");
        static final Runtime RUNTIME = Runtime.getRuntime(LIBC);
        static final int EVENT_SIZE = Native.sizeofEpollEvent();
        static final int DATA_OFFSET = Native.offsetofEpollData();
    }

    private final FileDescriptor epollFd;
    private final ByteBuf events;
    private final long eventsAddress;
    private final int maxEvents;

    EpollSet(int maxEvents) {
        Epoll.ensureAvailability();
        this.maxEvents = maxEvents;
        epollFd = Native.newEpollCreate();
        events = Unpooled.directBuffer(maxEvents * Holder.EVENT_SIZE);
        eventsAddress = events.memoryAddress();
    }

    /** Watches {@code fd} for readability (level-triggered; data = the fd). */
    void add(int fd) throws IOException {
        Native.epollCtlAdd(epollFd.intValue(), fd, Native.EPOLLIN);
    }

    void remove(int fd) throws IOException {
        Native.epollCtlDel(epollFd.intValue(), fd);
    }

    /** Waits up to {@code timeoutMillis} (-1 forever, 0 never); returns the number of ready fds (0 on EINTR). */
    int wait(int timeoutMillis) throws IOException {
        int n = Holder.LIBC.epoll_wait(epollFd.intValue(), eventsAddress, maxEvents, timeoutMillis);
        if (n < 0) {
            int errno = Holder.RUNTIME.getLastError();
            if (errno == EINTR) {
                return 0;
            }
            throw new IOException("epoll_wait failed, errno " + errno);
        }
        return n;
    }

    /** The fd of ready event {@code i} of the last {@link #wait}. */
    int fd(int i) {
        return PlatformDependent.getInt(eventsAddress + (long) i * Holder.EVENT_SIZE + Holder.DATA_OFFSET);
    }

    void close() throws IOException {
        try {
            epollFd.close();
        } finally {
            events.release();
        }
    }
}
