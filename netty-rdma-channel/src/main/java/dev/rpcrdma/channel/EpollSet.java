package dev.rpcrdma.channel;

import dev.rpcrdma.channel.unix.Libc;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.FileDescriptor;
import io.netty.util.internal.PlatformDependent;

import java.io.IOException;

/**
 * One epoll set for an event loop, waited on without allocating; events are read from a direct buffer laid out as
 * {@code struct epoll_event}.
 */
final class EpollSet {
    private final FileDescriptor epollFd;
    private final ByteBuf events;
    private final long eventsAddress;
    private final int maxEvents;

    EpollSet(int maxEvents) {
        // FileDescriptor's close is Netty's native code.
        Epoll.ensureAvailability();
        this.maxEvents = maxEvents;
        epollFd = Libc.newEpollCreate();
        events = Unpooled.directBuffer(maxEvents * Libc.EPOLL_EVENT_SIZE);
        eventsAddress = events.memoryAddress();
    }

    /** Watches {@code fd} for readability (level-triggered; data = the fd). */
    void add(int fd) throws IOException {
        Libc.epollCtlAdd(epollFd.intValue(), fd);
    }

    void remove(int fd) throws IOException {
        Libc.epollCtlDel(epollFd.intValue(), fd);
    }

    /**
     * Waits up to {@code timeoutMillis} (-1 forever, 0 never); returns the number of ready fds (0 on EINTR). The wait
     * saves no errno (a thread-local lookup per call); only a failure asks again, with errno saved and without
     * waiting: a signal's EINTR does not repeat (what is ready then is returned), a real error does.
     */
    int wait(int timeoutMillis) throws IOException {
        int n = Libc.epollWaitNoErrno(epollFd.intValue(), eventsAddress, maxEvents, timeoutMillis);
        if (n < 0) {
            n = Libc.epollWait(epollFd.intValue(), eventsAddress, maxEvents, 0);
        }
        if (n < 0) {
            int errno = Libc.errno();
            if (errno == Libc.EINTR) {
                return 0;
            }
            throw new IOException("epoll_wait failed, errno " + errno);
        }
        return n;
    }

    /** The fd of ready event {@code i} of the last {@link #wait}. */
    int fd(int i) {
        return PlatformDependent.getInt(eventsAddress + (long) i * Libc.EPOLL_EVENT_SIZE + Libc.EPOLL_DATA_OFFSET);
    }

    void close() throws IOException {
        try {
            epollFd.close();
        } finally {
            events.release();
        }
    }
}
