package dev.rpcrdma.oncrpc.client;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.AbstractScheduledEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.concurrent.Ticker;

import java.util.concurrent.TimeUnit;

/**
 * The deadlines of one connection's pending calls, with one scheduled task for all of them instead of one per
 * call: the calls are linked in deadline order (a call with the usual timeout goes to the tail in O(1)), and the
 * task is armed for the earliest deadline and re-armed when it fires. A call that completes is unlinked; the task
 * is left to fire (at worst once per timeout period) rather than cancelled, so a call costs no scheduling at all.
 * Event loop only; times on the loop's {@link Ticker} (so an {@code EmbeddedChannel}'s clock drives it in tests).
 */
final class CallTimeouts implements Runnable {

    private final RpcClientHandler handler;
    private EventLoop loop;
    private Ticker ticker;
    private PendingCall<?> head;
    private PendingCall<?> tail;
    /** The armed task and the deadline it was armed for. */
    private ScheduledFuture<?> timer;
    private long timerDeadline;

    CallTimeouts(RpcClientHandler handler) {
        this.handler = handler;
    }

    /** Links {@code call}, whose timeout starts now, and arms the task if its deadline is the earliest. */
    void add(PendingCall<?> call, EventLoop eventLoop) {
        if (loop != eventLoop) {
            loop = eventLoop;
            ticker = eventLoop instanceof AbstractScheduledEventExecutor
                    ? ((AbstractScheduledEventExecutor) eventLoop).ticker() : Ticker.systemTicker();
        }
        long deadline = ticker.nanoTime() + call.timeoutDuration.toNanos();
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
        if (timer == null || deadline - timerDeadline < 0) {
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

    private void arm(long deadline) {
        if (timer != null) {
            timer.cancel(false);
        }
        timerDeadline = deadline;
        timer = loop.schedule(this, Math.max(0, deadline - ticker.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** The task: fails every call whose deadline passed, then re-arms for the next one. */
    @Override
    public void run() {
        timer = null;
        long now = ticker.nanoTime();
        PendingCall<?> call;
        while ((call = head) != null && call.deadline - now <= 0) {
            remove(call);
            call.timedOut();
        }
        if (head != null && timer == null) {
            arm(head.deadline);
        }
    }

    /** Forgets every call and the task (the connection is gone). */
    void clear() {
        while (head != null) {
            remove(head);
        }
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
