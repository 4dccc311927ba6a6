package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.fabric.CompletionChannel;
import dev.rpcrdma.channel.fabric.CompletionQueue;
import dev.rpcrdma.channel.verbs.Verbs;

import java.io.IOException;
import java.util.Arrays;

/**
 * {@code ibv_comp_channel} with a non-blocking fd. A wake-up ({@link #getEvent}) allocates nothing: the event's
 * out-pointers land in native memory of the channel's own, and its queue is found by address among the handful of
 * queues on the channel (no boxed key).
 */
final class NativeCompletionChannel implements CompletionChannel {
    final long channel;
    private final int fd;
    /** 16 bytes for {@code ibv_get_cq_event}'s two out-pointers. */
    private long scratch;
    /** Copy-on-write: the queues created on this channel. */
    private volatile NativeCompletionQueue[] queues = new NativeCompletionQueue[0];
    private boolean closed;

    NativeCompletionChannel(long channel) {
        this.channel = channel;
        this.fd = Verbs.compChannelFd(channel);
        this.scratch = Verbs.allocateCqEventScratch();
    }

    /**
     * {@code q} was created on this channel: its events are returned as it. It takes the place of a destroyed queue
     * that had the same address (malloc reuses it), as a map keyed by address would.
     */
    synchronized void add(NativeCompletionQueue q) {
        NativeCompletionQueue[] current = queues;
        for (int i = 0; i < current.length; i++) {
            if (current[i].cq == q.cq) {
                NativeCompletionQueue[] replaced = current.clone();
                replaced[i] = q;
                queues = replaced;
                return;
            }
        }
        NativeCompletionQueue[] more = Arrays.copyOf(current, current.length + 1);
        more[current.length] = q;
        queues = more;
    }

    @Override
    public int fd() {
        return fd;
    }

    @Override
    public CompletionQueue getEvent() throws IOException {
        if (closed) {
            return null; // never ibv_get_cq_event on a destroyed channel
        }
        long cq = Verbs.getCqEvent(channel, scratch);
        return cq == 0 ? null : queue(cq);
    }

    /** The queue created on this channel at address {@code cq}, or null. */
    NativeCompletionQueue queue(long cq) {
        for (NativeCompletionQueue q : queues) {
            if (q.cq == cq) {
                return q;
            }
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        if (!closed) {
            Verbs.destroyCompChannel(channel);
            closed = true;
            queues = new NativeCompletionQueue[0];
            Verbs.freeCqEventScratch(scratch);
            scratch = 0;
        }
    }
}
