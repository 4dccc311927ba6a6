package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.unix.Libc;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.FileDescriptor;

import java.io.IOException;

/**
 * A non-blocking Linux eventfd used as the readable "signal" of a software completion or event channel. Set and
 * cleared only under the fabric lock, so the counter is read only when it is known to be non-zero.
 */
final class EventFd {
    private final FileDescriptor fd;
    private boolean set;

    EventFd() {
        Epoll.ensureAvailability();
        fd = Libc.newEventFd();
    }

    int fd() {
        return fd.intValue();
    }

    /** Makes the fd readable (idempotent). Caller holds the fabric lock. */
    void set() {
        if (!set) {
            Libc.eventFdWrite(fd.intValue(), 1L);
            set = true;
        }
    }

    /** Makes the fd unreadable again (idempotent). Caller holds the fabric lock. */
    void clear() {
        if (set) {
            Libc.eventFdRead(fd.intValue());
            set = false;
        }
    }

    void close() throws IOException {
        fd.close();
    }
}
