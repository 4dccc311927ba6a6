package dev.rpcrdma.channel;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallContextCache;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.LastError;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.Native;
import io.netty.channel.unix.FileDescriptor;
import io.netty.util.internal.PlatformDependent;

import java.io.IOException;

/**
 * One epoll set for an event loop: created and edited through netty-transport-native-epoll's public
 * {@code Native} API ({@code epoll_create}, {@code epoll_ctl}, eventfd); waited on with libc {@code epoll_wait}
 * (Netty's {@code EpollEventArray} is not public) through jffi on the function's address, errno saved and nothing
 * allocated, as the verbs' data path calls the provider: the loop makes this call on every wake-up. Events are read
 * from a direct buffer laid out as {@code struct epoll_event} (size and data offset from {@code Native}).
 */
final class EpollSet {
    private static final int EINTR = 4;

    private static final class Holder {
        static final Invoker INVOKER = Invoker.getInstance();
        /** {@code int epoll_wait(int, struct epoll_event *, int, int)}, errno saved. */
        static final CallContext EPOLL_WAIT = CallContextCache.getInstance().getCallContext(Type.SINT32,
                new Type[] {Type.SINT32, Type.POINTER, Type.SINT32, Type.SINT32}, CallingConvention.DEFAULT, true);
        static final long FUNCTION = symbol("libc.so.6", "epoll_wait");
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
        int n = (int) Holder.INVOKER.invokeN4(Holder.EPOLL_WAIT, Holder.FUNCTION, epollFd.intValue(),
                eventsAddress, maxEvents, timeoutMillis);
        if (n < 0) {
            int errno = LastError.getInstance().get();
            if (errno == EINTR) {
                return 0;
            }
            throw new IOException("epoll_wait failed, errno " + errno);
        }
        return n;
    }

    private static long symbol(String soname, String name) {
        long address = Library.getCachedInstance(soname, Library.LAZY).getSymbolAddress(name);
        if (address == 0) {
            throw new UnsatisfiedLinkError("no symbol " + name + " in " + soname);
        }
        return address;
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
