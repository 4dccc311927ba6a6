package dev.rpcrdma.oncrpc.client;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.AbstractScheduledEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.concurrent.Ticker;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The deadlines of one connection's pending calls, linked in deadline order and swept by one task for all of them;
 * on a real loop in ticks of the {@link TimeoutSweeper}, on any other in nanoseconds of the loop's {@link Ticker}
 * (see the package documentation). Event loop only, except {@link #publishedDeadline} and {@link #requestSweep}
 * (the sweeper's thread).
 */
final class CallTimeouts implements Runnable {

    /** No deadline published. */
    static final long NONE = Long.MIN_VALUE;

    private final RpcClientHandler handler;
    private final TimeoutSweeper sweeper;
    private EventLoop loop;
    private Ticker ticker;
    /** Deadlines are sweeper ticks (the loop runs on the system clock); else nanoseconds of {@link #ticker}. */
    private boolean ticks;
    private boolean registered;
    private PendingCall<?> head;
    private PendingCall<?> tail;
    /** Ticks mode: the earliest deadline the sweeper knows of, or NONE; written on the loop, read by the sweeper. */
    private volatile long published = NONE;
    /** Ticks mode: a sweep is queued on the loop (set by the sweeper, cleared by the sweep). */
    private volatile boolean sweepRequested;
    /** The last timeout converted to ticks, and its ticks (calls of one connection mostly share one timeout). */
    private Duration lastTimeout;
    private long lastTimeoutTicks;
    /** Scheduled mode: the armed task and the deadline it was armed for. */
    private ScheduledFuture<?> timer;
    private long timerDeadline;

    CallTimeouts(RpcClientHandler handler) {
        this(handler, TimeoutSweeper.instance());
    }

    CallTimeouts(RpcClientHandler handler, TimeoutSweeper sweeper) {
        this.handler = handler;
        this.sweeper = sweeper;
    }

    /** Links {@code call}, whose timeout starts now, and makes sure its deadline will be looked at. */
    void add(PendingCall<?> call, EventLoop eventLoop) {
        if (loop != eventLoop) {
            loop = eventLoop;
            ticker = eventLoop instanceof AbstractScheduledEventExecutor
                    ? ((AbstractScheduledEventExecutor) eventLoop).ticker() : Ticker.systemTicker();
            ticks = ticker == Ticker.systemTicker();
        }
        long deadline;
        if (ticks) {
            Duration timeout = call.timeoutDuration;
            if (timeout != lastTimeout) {
                lastTimeout = timeout;
                lastTimeoutTicks = sweeper.ticksFor(timeout.toNanos());
                sweeper.timeoutInUse(lastTimeoutTicks);
            }
            // The tick, plus the most ticks the sweeper's next pass may count at once: never early.
            long clock = sweeper.clock();
            deadline = TimeoutSweeper.tickOf(clock) + lastTimeoutTicks + TimeoutSweeper.jumpOf(clock);
        } else {
            deadline = ticker.nanoTime() + call.timeoutDuration.toNanos();
        }
        call.deadline = deadline;
        PendingCall<?> after = tail;
        while (after != null && after.deadline - deadline > 0) {
            after = after.prev;
        }
        call.prev = after;
        call.next = after == null ? head : after.next;
        if (call.next != null) {
            call.next.prev = call;
        } else {
            tail = call;
        }
        if (after != null) {
            after.next = call;
        } else {
            head = call;
        }
        call.linked = true;
        if (ticks) {
            long p = published;
            if (p == NONE || deadline - p < 0) {
                publish(deadline);
            }
        } else if (timer == null || deadline - timerDeadline < 0) {
            arm(deadline);
        }
    }

    /** Unlinks {@code call} if it is linked. */
    void remove(PendingCall<?> call) {
        if (!call.linked) {
            return;
        }
        call.linked = false;
        if (call.prev != null) {
            call.prev.next = call.next;
        } else {
            head = call.next;
        }
        if (call.next != null) {
            call.next.prev = call.prev;
        } else {
            tail = call.prev;
        }
        call.prev = null;
        call.next = null;
    }

    private void publish(long deadline) {
        if (!registered) {
            registered = true;
            sweeper.register(this);
        }
        long before = published;
        published = deadline;
        if (before == NONE) {
            sweeper.published();
        }
    }

    /** The earliest deadline published to the sweeper, or {@link #NONE}; any thread. */
    long publishedDeadline() {
        return published;
    }

    /** The sweeper's thread: the published deadline has come; the loop sweeps (once, however often asked). */
    void requestSweep() {
        if (sweepRequested) {
            return;
        }
        sweepRequested = true;
        try {
            loop.execute(this);
        } catch (RejectedExecutionException e) {
            // The loop is shutting down: its channels close, and clear() forgets this connection.
            published = NONE;
        }
    }

    private void arm(long deadline) {
        if (timer != null) {
            timer.cancel(false);
        }
        timerDeadline = deadline;
        timer = loop.schedule(this, Math.max(0, deadline - ticker.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** The sweep (the scheduled task, or the sweeper's request): fails every call whose deadline passed. */
    @Override
    public void run() {
        if (ticks) {
            long now = sweeper.tick();
            expire(now);
            published = head != null ? head.deadline : NONE; // before the request is cleared: no second request
            sweepRequested = false;
            return;
        }
        timer = null;
        expire(ticker.nanoTime());
        if (head != null && timer == null) {
            arm(head.deadline);
        }
    }

    private void expire(long now) {
        PendingCall<?> call;
        while ((call = head) != null && call.deadline - now <= 0) {
            remove(call);
            call.timedOut();
        }
    }

    /** Forgets every call, the task and the sweeper (the connection is gone). */
    void clear() {
        while (head != null) {
            remove(head);
        }
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        published = NONE;
        if (registered) {
            registered = false;
            sweeper.unregister(this);
        }
    }
}
