package dev.rpcrdma.channel;

import io.netty.channel.epoll.Native;
import io.netty.channel.unix.FileDescriptor;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The loop's epoll set: {@code epoll_wait} through jffi counts the ready fds and names them. */
class EpollSetTest {

    @Test
    void readyFdsAreCountedAndNamed() throws Exception {
        EpollSet epoll = new EpollSet(4);
        FileDescriptor eventFd = Native.newEventFd();
        try {
            epoll.add(eventFd.intValue());
            assertEquals(0, epoll.wait(0), "nothing ready");
            Native.eventFdWrite(eventFd.intValue(), 1L);
            assertEquals(1, epoll.wait(1000), "the eventfd is readable");
            assertEquals(eventFd.intValue(), epoll.fd(0));
            Native.eventFdRead(eventFd.intValue());
            assertEquals(0, epoll.wait(0), "read: nothing ready again");
        } finally {
            eventFd.close();
            epoll.close();
        }
    }

    /** The wait saves no errno; a failure asks again with errno saved, so the error still names its cause. */
    @Test
    void aFailedWaitReportsItsErrno() throws Exception {
        EpollSet epoll = new EpollSet(0); // epoll_wait refuses maxevents 0: EINVAL, each time
        try {
            IOException e = assertThrows(IOException.class, () -> epoll.wait(0));
            assertTrue(e.getMessage().endsWith("errno 22"), e.getMessage());
        } finally {
            epoll.close();
        }
    }
}
