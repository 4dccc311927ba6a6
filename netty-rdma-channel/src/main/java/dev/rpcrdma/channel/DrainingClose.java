package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.VerbsDevice;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.PromiseNotifier;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;

/**
 * An {@link RdmaChannel}'s delayed close (as io_uring's): the queue pair goes to error, Netty's close runs once every
 * posted work request came back through the loop's completion polling (or at the backstop timer). Loop thread.
 */
final class DrainingClose {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaChannel.class);
    static final int DRAIN_TIMEOUT_MILLIS = 5000;
    /** The wait for the flushes of the state change where work posted after the error is never flushed (iWARP). */
    static final int SETTLE_MILLIS = 200;

    private final RdmaChannel ch;
    /** The close waiting for the drain, and the backstop timer. */
    private ChannelPromise closePromise;
    private Throwable closeCause;
    private ClosedChannelException closedCause;
    private Future<?> drainTimeout;
    /**
     * {@link System#nanoTime()} after which a close stops waiting for flushes, on a device that does not flush work
     * posted after the error ({@link VerbsDevice#flushesWorkPostedInError()}); 0 elsewhere.
     */
    private long settleDeadline;
    /** The loop is terminating: the close finishes without the executor ({@link RdmaIoHandle#terminate}). */
    private boolean terminating;
    private boolean terminatingWasActive;

    DrainingClose(RdmaChannel ch) {
        this.ch = ch;
    }

    /** Every posted work request came back (completed or flushed): the verbs objects may go. */
    boolean drained() {
        RdmaEndpoint e = ch.endpoint();
        return e == null || ch.sendQueue().inFlight() == 0 && ch.receiveQueue().posted() == 0;
    }

    /**
     * Whether the close may go on: everything came back, or (on a device that never flushes work posted after the
     * error) the flushes of the state change had their time, {@link #SETTLE_MILLIS}.
     */
    private boolean drainDone() {
        return drained() || settleDeadline != 0 && System.nanoTime() - settleDeadline >= 0;
    }

    /**
     * Starts closing without waiting: no more posts or registrations, pending connect/accept fail, the connect
     * request is rejected or the connection disconnected, the queue pair goes to error so the device flushes what
     * is posted, with a drain marker behind an unsignalled last Send. Idempotent.
     */
    void begin() {
        ConnectionState was = ch.state;
        if (was.closing()) {
            return;
        }
        ch.state = ConnectionState.DRAINING;
        SendQueue s = ch.sendQueue();
        if (s != null && ch.endpoint() != null) {
            s.postDirect(false); // Sends the direct lane staged in this batch go out first, as written
        }
        ch.registry().closeRegistrations();
        ch.cm().close(was);
        RdmaEndpoint e = ch.endpoint();
        if (e != null) {
            ch.receiveQueue().dropHeld();
            try {
                e.qp.modifyToError();
            } catch (IOException ex) {
                logger.warn("{}: modify QP to error failed", ch, ex);
            }
            if (!ch.sendQueue().postDrainMarker()) {
                logger.warn("{}: posting the drain marker failed; unsignalled Sends may never be reported", ch);
            }
            VerbsDevice d = ch.device();
            if (d != null && !d.flushesWorkPostedInError()) {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETTLE_MILLIS);
                settleDeadline = deadline == 0 ? 1 : deadline;
            }
        }
    }

    /** The unsafe's close of an open channel: starts closing, completes Netty's close once drained. */
    void close(ChannelPromise promise, Throwable cause, ClosedChannelException closeCause) {
        if (closePromise != null) {
            closePromise.addListener(new PromiseNotifier<>(false, promise));
            return;
        }
        closePromise = promise.isVoid() ? ch.newPromise() : promise;
        this.closeCause = cause;
        closedCause = closeCause;
        begin();
        if (drained()) {
            if (!ch.polling()) {
                closeNow();
            } // else batchDone() finishes it after the batch
        } else if (!terminating) {
            drainTimeout = ch.eventLoop().schedule(this::drainTimedOut,
                    settleDeadline != 0 ? SETTLE_MILLIS : DRAIN_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** A close is waiting for the drain. */
    boolean draining() {
        return closePromise != null && !ch.closeFuture().isDone();
    }

    /** The end of a completion batch: a close waiting for the drain finishes if everything is back. */
    void batchDone() {
        if (closePromise != null && !terminating && drained()) {
            closeNow();
        }
    }

    /** The backstop: the device did not flush in time. */
    private void drainTimedOut() {
        drainTimeout = null;
        if (closePromise != null && ch.state == ConnectionState.DRAINING && !drained()) {
            closeNow();
        }
    }

    /**
     * While the loop shuts down (no timers run): finishes a close whose drain is done by {@link #drainDone()}'s
     * settle rule, as {@link #drainTimedOut()} would.
     */
    void checkDrain() {
        if (closePromise != null && !terminating && ch.state == ConnectionState.DRAINING
                && !ch.closeFuture().isDone() && !drained() && drainDone()) {
            closeNow();
        }
    }

    /**
     * Finishes the delayed close: first the queue pair is destroyed on a teardown thread
     * ({@link QueuePairTeardown}: {@code ibv_destroy_qp} may sleep in the kernel), then, back on the loop, Netty's
     * close ({@link #destroy()} frees the memory, the queue pair being gone).
     */
    private void closeNow() {
        RdmaEndpoint e = ch.endpoint();
        if (e != null && e.qp != null && e.qpTeardown != RdmaEndpoint.QP_STUCK) {
            if (e.qpTeardown == RdmaEndpoint.QP_HERE) {
                ch.registry().releaseWindows(); // before the destroy: a bound window can hold the QP (Linux rxe_mw.c)
                e.qpTeardown = RdmaEndpoint.QP_DESTROYING;
                ch.ioHandler.teardown.destroy(e.qp, destroyed -> {
                    e.queuePairDestroyed(destroyed);
                    if (!ch.closeFuture().isDone() && !terminating) {
                        closeNow();
                    }
                });
            }
            return;
        }
        ch.rdmaUnsafe().closeNetty(closePromise, closeCause, closedCause);
    }

    /**
     * The loop is terminating: start closing (if not yet), then finish on this thread once drained (the loop
     * keeps polling meanwhile), or now when {@code abandon}.
     */
    boolean terminate(boolean abandon) {
        if (ch.state == ConnectionState.CLOSED) {
            return true;
        }
        if (!terminating) {
            terminating = true;
            terminatingWasActive = ch.isActive();
            begin();
        }
        RdmaEndpoint e = ch.endpoint();
        if (!abandon && (!drainDone() || e != null && e.qpTeardown == RdmaEndpoint.QP_DESTROYING)) {
            return false;
        }
        ch.unsafe().closeForcibly(); // doClose(): destroys what drained, leaks (logged) what did not
        ch.rdmaUnsafe().failOutbound();
        if (terminatingWasActive) {
            ch.pipeline().fireChannelInactive();
        }
        ch.pipeline().fireChannelUnregistered();
        return true;
    }

    /** The channel's own teardown ({@code doClose}): everything drained (or abandoned), destroy in verbs order. */
    void destroy() {
        if (ch.state == ConnectionState.CLOSED) {
            return; // closeForcibly() after close(), or twice (failed registration, then the acceptor)
        }
        begin(); // closeForcibly() without close() (a failed registration): nothing was posted then
        ch.active = false;
        ch.open = false;
        Future<?> t = drainTimeout;
        drainTimeout = null;
        if (t != null) {
            t.cancel(false);
        }
        RdmaEndpoint e = ch.endpoint();
        boolean qpBusy = e != null && e.qpTeardown == RdmaEndpoint.QP_DESTROYING;
        if (e != null) {
            boolean drained = drained();
            if (!drained && settleDeadline != 0) {
                logger.debug("{}: {} send and {} receive work requests posted after the queue pair went to error "
                        + "were not flushed (the device flushes only at the state change); destroying the queue pair "
                        + "first: once it is gone the device owns none of their memory",
                        ch, ch.sendQueue().inFlight(), ch.receiveQueue().posted());
            } else if (!drained) {
                logger.warn("{}: the device did not flush {} send and {} receive work requests within {} ms; "
                        + "destroying the queue pair first: once it is gone the device owns none of their memory",
                        ch, ch.sendQueue().inFlight(), ch.receiveQueue().posted(), DRAIN_TIMEOUT_MILLIS);
            }
            // Verbs order: MWs (the QP is in error: no bind runs any more; MemoryRegistry.releaseWindows), QP, MRs,
            // then the loop's CQ and PD with its last channel; the id in closeCm. A queue pair whose destroy is still
            // under way (the loop terminating) keeps everything.
            if (!qpBusy) {
                ch.registry().releaseWindows();
            }
            if (e.destroyQueues(drained) || drained && e.qpTeardown != RdmaEndpoint.QP_DESTROYING) {
                ch.registry().releaseAll();
                e.destroyMemory();
            } else {
                logger.error("{}: the queue pair could not be destroyed with work requests outstanding; leaking "
                        + "its registered memory rather than freeing it under the device", ch);
            }
            ch.clearEndpoint();
        }
        ch.state = ConnectionState.CLOSED;
        if (qpBusy) {
            // Only when the loop ends before the destroy returned (it waits up to QP_DESTROY_WAIT for it).
            logger.error("{}: the event loop ended while its queue pair was still being destroyed; leaking its "
                    + "registered memory and RDMA-CM id rather than freeing them under the device", ch);
            ch.abandonCm();
        } else {
            ch.closeCm();
        }
    }
}
