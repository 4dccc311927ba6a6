package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.PostException;
import dev.rpcrdma.channel.fabric.WcStatus;
import io.netty.buffer.ByteBuf;

import java.io.IOException;

/**
 * The receive side of one {@link RdmaChannel}'s queue pair — its own receive queue, or its loop's shared receive
 * queue ({@link SharedReceives}: then the posted receives and the slab are the queue's, the channel has none of its
 * own to drain, and its credits are its fair share) — the posted count (and what of it may be granted as
 * credits: up to the depth, not the batching slack), the initial posting, delivery of completed receives (lent in
 * place or copied, with the reposts in batches: {@link ReceiveBuffers}, {@link RdmaEndpoint#repost}), and the ring of
 * held receives: completed but not fired yet because auto-read is off and no read is pending, or the channel is not
 * active yet (the passive side can see receives before {@code RDMA_CM_EVENT_ESTABLISHED}). A held receive keeps its
 * slot unposted, so holding is real back-pressure (the peer meets RNR). Preallocated with the endpoint: holding a
 * receive allocates nothing. Event-loop confined, except {@link #creditable()}, which any thread may read.
 */
final class ReceiveQueue {
    private final RdmaChannel channel;
    private final RdmaEndpoint ep;
    /** The loop's shared receive queue, or null. */
    private final SharedReceives shared;
    private final int bufferSize;
    private final int channelId;
    /** The loop's free receive holders. */
    private final ReceiveHolders holders;
    private volatile int posted;
    /** Receives kept in the ring, in completion order: slots, and per slot byte_len, invalidation, rkey. */
    private final int[] heldSlots;
    private final int[] heldLength;
    private final boolean[] heldInvalidated;
    private final int[] heldRkey;
    private int heldHead;
    private int heldCount;

    ReceiveQueue(RdmaChannel channel, RdmaEndpoint ep, int channelId) {
        this.channel = channel;
        this.ep = ep;
        this.shared = ep.shared;
        this.channelId = channelId;
        this.holders = channel.ioHandler.receiveHolders;
        bufferSize = shared != null ? shared.bufferSize : ep.receiveBufferSize;
        int slots = (shared != null ? shared.buffers : ep.receives).slots();
        heldSlots = new int[shared != null ? shared.queueSize : ep.receiveQueueSize];
        heldLength = new int[slots];
        heldInvalidated = new boolean[slots];
        heldRkey = new int[slots];
    }

    /** Posts the whole receive queue (before connecting or accepting). */
    void postAll() throws IOException {
        if (shared != null) {
            return; // the shared queue is posted
        }
        for (int slot = 0; slot < ep.receiveQueueSize; slot++) {
            ep.postReceive(channelId, slot);
            posted++;
        }
    }

    /** Receives posted (owned by the device), the batching slack included. */
    int posted() {
        return posted;
    }

    /**
     * Posted receives counted up to the depth: the credits this side can grant (RFC 8166 §3.3.1); with a shared
     * receive queue, this connection's fair share of it ({@link SharedReceives#credits}).
     */
    int creditable() {
        SharedReceives s = shared;
        return s != null ? s.credits(ep.receiveDepth) : Math.min(posted, ep.receiveDepth);
    }

    boolean hasHeld() {
        return heldCount > 0;
    }

    /**
     * A receive completion for {@code slot}. Errors are reported to the channel; a good one is delivered at once
     * when {@code deliverNow}, else held. Returns true if an {@link RdmaReceive} was fired.
     */
    boolean complete(int slot, int status, int length, boolean invalidated, int invalidatedRkey, boolean closing,
                     boolean deliverNow) {
        if (shared != null) {
            shared.consumed();
        } else {
            posted--;
        }
        if (status != WcStatus.SUCCESS) {
            giveBackShared(slot);
            channel.failures.receiveFailed(status);
            return false;
        }
        if (closing) {
            giveBackShared(slot);
            return false;
        }
        if (length < 0 || length > bufferSize) {
            // The device bounds byte_len by the posted buffer; never trust it further than that.
            giveBackShared(slot);
            channel.recordFailure(new RdmaException("receive completion with byte_len " + (length & 0xffffffffL)
                    + " > posted " + bufferSize));
            return false;
        }
        if (invalidated) {
            channel.registry().invalidated(invalidatedRkey);
        }
        if (deliverNow && heldCount == 0) {
            deliver(slot, length, invalidated, invalidatedRkey);
            return true;
        }
        hold(slot, length, invalidated, invalidatedRkey);
        return false;
    }

    /** Keeps a completed receive for a later read; its slot is not reposted until then. */
    private void hold(int slot, int length, boolean invalidated, int invalidatedRkey) {
        // Each held receive keeps its own slot, so the ring (receive queue size) cannot overflow.
        heldSlots[(heldHead + heldCount) % heldSlots.length] = slot;
        heldCount++;
        heldLength[slot] = length;
        heldInvalidated[slot] = invalidated;
        heldRkey[slot] = invalidatedRkey;
    }

    /** Fires the oldest held receive. */
    void deliverHeld() {
        int slot = heldSlots[heldHead];
        heldHead = (heldHead + 1) % heldSlots.length;
        heldCount--;
        deliver(slot, heldLength[slot], heldInvalidated[slot], heldRkey[slot]);
    }

    /**
     * Forgets the held receives (closing): their slots go with the slab, or back to the shared receive queue, whose
     * slots they are.
     */
    void dropHeld() {
        while (heldCount > 0) {
            int slot = heldSlots[heldHead];
            heldHead = (heldHead + 1) % heldSlots.length;
            heldCount--;
            giveBackShared(slot);
        }
        heldHead = 0;
    }

    /** A shared receive's slot that is not delivered goes back to the shared queue (its own slab's stays put). */
    private void giveBackShared(int slot) {
        if (shared != null) {
            try {
                shared.repost(slot);
            } catch (IOException e) {
                channel.recordFailure(e);
            }
        }
    }

    /**
     * Fires a completed receive: in place (its slot lent, a free slot reposted instead) when a slot is free, else as
     * a copy (its slot reposted).
     */
    private void deliver(int slot, int length, boolean invalidated, int invalidatedRkey) {
        // Not kept in a field: a closed channel must not keep its slab reachable (a leaked lent buffer's slab is
        // reported by the leak detector once both are unreachable).
        ReceiveBuffers receives = shared != null ? shared.buffers : ep.receives;
        int spare = receives.lend(slot);
        ByteBuf buf = spare >= 0 ? receives.lent(length) : receives.copy(slot, length);
        try {
            int reposted = spare >= 0 ? spare : slot;
            if (shared != null) {
                shared.repost(reposted);
            } else {
                posted += ep.repost(channelId, reposted);
            }
        } catch (IOException ex) {
            if (ex instanceof PostException && shared == null) {
                posted += ((PostException) ex).posted();
            }
            buf.release();
            channel.fail(ex);
            return;
        }
        channel.inbound.fireChannelRead(RdmaReceive.newInstance(holders, buf, invalidated, invalidatedRkey));
    }
}
