package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The loop's wait/wakeup protocol without any channel: only the eventfd and the deadline can wake it. */
class RdmaIoHandlerTest {
    private EventLoopGroup group;

    @BeforeEach
    void start() {
        group = new MultiThreadIoEventLoopGroup(1,
                RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(SoftwareFabric.instance())));
    }

    @AfterEach
    void stop() throws InterruptedException {
        assertTrue(group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS));
    }

    @Test
    void tasksFromOtherThreadsWakeABlockedLoop() throws Exception {
        EventLoop loop = group.next();
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 500; i++) {
            if (i % 50 == 0) {
                Thread.sleep(2); // let the loop reach epoll_wait with no deadline
            }
            // Each submit must wake the loop: without the eventfd write it would sleep forever (no deadline).
            loop.submit(ran::incrementAndGet).get(5, TimeUnit.SECONDS);
        }
        assertEquals(500, ran.get());
    }

    @Test
    void scheduledTasksRunAtTheirDeadlineWhileTheLoopWaits() throws Exception {
        EventLoop loop = group.next();
        long start = System.nanoTime();
        loop.schedule(() -> { }, 30, TimeUnit.MILLISECONDS).get(5, TimeUnit.SECONDS);
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(30), "not before its deadline");
    }

    @Test
    void waitTimeoutComesFromTheExecutorsDelayNotFromSystemNanoTime() {
        // Netty's deadlines are on its scheduled-task ticker (small numbers since the executor class loaded), not
        // on System.nanoTime(): a deadline 20 ms ahead on that clock must give a 20 ms epoll_wait, not 0 (which
        // made every loop with a pending scheduled task, e.g. an RPC call timeout, busy-spin on epoll_wait(0)).
        long delay = TimeUnit.MILLISECONDS.toNanos(20);
        assertEquals(20, RdmaIoHandler.timeoutMillis(context(TimeUnit.MILLISECONDS.toNanos(5), delay)));
        assertEquals(1, RdmaIoHandler.timeoutMillis(context(1, 1)), "a partial millisecond rounds up");
        assertEquals(0, RdmaIoHandler.timeoutMillis(context(1, -1)), "a past deadline does not block");
        assertEquals(Integer.MAX_VALUE, RdmaIoHandler.timeoutMillis(context(-1, Long.MAX_VALUE)), "no overflow");
    }

    /**
     * The clock is read only when a task is scheduled: without one, the executor's delay (its purge interval) is the
     * same at any time; with one, the delay from {@link RdmaIoHandler#FAR_FUTURE} is 0 and the delay from now counts.
     */
    @Test
    void waitTimeoutReadsTheClockOnlyWithAScheduledTask() {
        long purge = TimeUnit.SECONDS.toNanos(1);
        long[] asked = new long[2];
        IoHandlerContext none = tickerContext(-1, purge, asked);
        assertEquals(1000, RdmaIoHandler.timeoutMillis(none));
        assertEquals(1, asked[1], "one question, at a time after any deadline");
        assertEquals(RdmaIoHandler.FAR_FUTURE, asked[0]);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3600);
        IoHandlerContext scheduled = tickerContext(deadline, purge, asked);
        int millis = RdmaIoHandler.timeoutMillis(scheduled);
        assertEquals(2, asked[1], "asked again, at the time now");
        assertTrue(asked[0] < deadline, "the second question is at the time now");
        assertTrue(millis > 3_500_000 && millis <= 3_600_000, "about an hour: " + millis);
        IoHandlerContext due = tickerContext(System.nanoTime() - 1, purge, asked);
        assertEquals(0, RdmaIoHandler.timeoutMillis(due), "due: no wait");
    }

    /** A context whose one scheduled task (none when {@code deadline} is -1) is due at {@code deadline}. */
    private static IoHandlerContext tickerContext(long deadline, long purgeNanos, long[] asked) {
        asked[1] = 0;
        return new IoHandlerContext() {
            @Override
            public boolean canBlock() {
                return true;
            }

            @Override
            public long delayNanos(long currentTimeNanos) {
                asked[0] = currentTimeNanos;
                asked[1]++;
                return deadline == -1 ? purgeNanos : Math.max(0, deadline - currentTimeNanos);
            }

            @Override
            public long deadlineNanos() {
                throw new AssertionError("not asked: it reads the clock when no task is scheduled");
            }
        };
    }

    private static IoHandlerContext context(long deadlineNanos, long delayNanos) {
        return new IoHandlerContext() {
            @Override
            public boolean canBlock() {
                return true;
            }

            @Override
            public long delayNanos(long currentTimeNanos) {
                return delayNanos;
            }

            @Override
            public long deadlineNanos() {
                return deadlineNanos;
            }
        };
    }

    @Test
    void acceptsOnlyRdmaHandles() {
        RdmaIoHandler handler = (RdmaIoHandler) RdmaIoHandler.newFactory(
                new RdmaIoHandlerConfig().fabric(SoftwareFabric.instance())).newHandler(group.next());
        try {
            assertFalse(handler.isCompatible(NioIoHandle.class));
            assertTrue(handler.isCompatible(RdmaIoHandle.class));
        } finally {
            handler.destroy();
        }
    }

    @Test
    void workRequestIdsRoundTrip() {
        long id = WorkRequestIds.encode(0xabcdef, WorkRequestIds.SEND_QUEUE, -2);
        assertEquals(0xabcdef, WorkRequestIds.channelId(id));
        assertEquals(WorkRequestIds.SEND_QUEUE, WorkRequestIds.kind(id));
        assertEquals(-2, WorkRequestIds.slot(id));
    }
}
