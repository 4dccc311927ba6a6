package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.QueuePair;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * The Sends of the direct send lane ({@link RdmaChannel#sendDirect}) staged in a {@link SendQueue}'s chain, in order,
 * with their sequence numbers: released and their promises completed once the chain is posted (an inline Send's bytes
 * are read by the post). Event-loop confined.
 */
final class DirectSendLane {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(SendQueue.class);

    private final RdmaChannel channel;
    private final Object[] messages = new Object[QueuePair.MAX_POST_CHAIN];
    private final ChannelPromise[] promises = new ChannelPromise[QueuePair.MAX_POST_CHAIN];
    private final int[] seqs = new int[QueuePair.MAX_POST_CHAIN];
    private int count;
    /** Sends the direct lane took, for tests ({@code DirectSends} in the test-jar). */
    private int taken;

    DirectSendLane(RdmaChannel channel) {
        this.channel = channel;
    }

    /** Staged Sends not yet posted. */
    int count() {
        return count;
    }

    /** Sends the direct lane took. */
    int taken() {
        return taken;
    }

    /** Records {@code msg} as staged with sequence number {@code seq}, before it is staged. */
    void add(Object msg, ChannelPromise promise, int seq) {
        taken++;
        int i = count++;
        messages[i] = msg;
        promises[i] = promise;
        seqs[i] = seq;
    }

    /**
     * The Sends staged before sequence {@code postedBefore} were posted: released, promises succeeded; the rest were
     * not (unstaged): released, promises failed with {@code cause}, the failure recorded first so that no listener
     * posts behind them.
     */
    void finish(int postedBefore, Throwable cause) {
        int n = count;
        if (n == 0) {
            return;
        }
        count = 0; // a listener may send again (into the emptied lists)
        boolean failed = false;
        for (int i = 0; i < n; i++) {
            Object msg = messages[i];
            messages[i] = null;
            releaseSend(msg);
            failed |= seqs[i] - postedBefore >= 0;
        }
        if (failed && channel.canPost()) {
            channel.recordFailure(cause);
        }
        // Only a non-void promise runs listeners that may send again (into index 0 on): a Send with one is posted at
        // once, so it is the chain's last, completed after every other; a failure stops the lane first.
        for (int i = 0; i < n; i++) {
            ChannelPromise p = promises[i];
            promises[i] = null;
            if (seqs[i] - postedBefore >= 0) {
                p.tryFailure(cause);
            } else if (!p.isVoid()) {
                p.trySuccess();
            }
        }
    }

    /**
     * Releases a Send the lane posted or dropped, as the outbound buffer's removal does (a failure to release is
     * logged, never thrown); a {@link ByteBuf} directly, so the call site stays monomorphic.
     */
    private static void releaseSend(Object msg) {
        if (msg instanceof ByteBuf) {
            try {
                ((ByteBuf) msg).release();
            } catch (RuntimeException e) {
                logger.warn("Failed to release a Send: {}", msg, e);
            }
        } else {
            ReferenceCountUtil.safeRelease(msg);
        }
    }
}
