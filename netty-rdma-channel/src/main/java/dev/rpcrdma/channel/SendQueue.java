package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.PostException;
import dev.rpcrdma.channel.fabric.QueuePair;
import dev.rpcrdma.channel.fabric.SendFlags;
import dev.rpcrdma.channel.fabric.SendChain;
import dev.rpcrdma.channel.fabric.SendWorkRequest;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.channel.fabric.WrOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;

/**
 * The send side of one {@link RdmaChannel}'s queue pair: posts the outbound buffer's messages in chains, signalled
 * selectively, and retires them in order from their completions through a ring of {@link SendQueueEntry}s indexed by
 * the sequence number in the {@code wr_id}. The package documentation gives the ownership rules. Event-loop confined.
 */
final class SendQueue {
    private static final int WRITABILITY_BIT = 1;

    private final RdmaChannel channel;
    private final RdmaEndpoint ep;
    private final int channelId;
    /** Work requests the channel may have outstanding (writability); the queue pair has one entry more. */
    private final int depth;
    /** One entry per send queue entry: {@code depth} for writes plus one for the drain marker. */
    private final SendQueueEntry[] inFlight;
    private final SendWorkRequest drainMarker = new SendWorkRequest();
    private final FlushedMessages flushed = new FlushedMessages();
    private final HeadSends headSends = new HeadSends();
    /** Requests staged by this pass in the queue pair's {@link SendChain} (one more may be half begun). */
    private int chained;
    /** The direct lane's Sends in the chain ({@link #sendDirect}). */
    private final DirectSendLane direct;
    private int head;
    private int tail;
    private int unsignaledRun;
    /** RDMA Reads posted and not yet retired (see {@link RdmaEndpoint#fenceBehindReads}). */
    private int readsInFlight;
    /** Posted work requests whose message is still in the outbound buffer (its promise waits for the completion). */
    private int heldInBuffer;
    private boolean lastPostedSignaled = true;
    /** In {@link #write}: a promise listener that flushes from inside it only asks for another pass. */
    private boolean writing;
    private boolean writeAgain;
    private ChannelOutboundBuffer outbound;
    /** The writability bit as last set, and on which outbound buffer (none yet: set on the first pass). */
    private boolean writabilitySet;
    private ChannelOutboundBuffer writabilityOf;

    SendQueue(RdmaChannel channel, RdmaEndpoint ep, int channelId) {
        this.channel = channel;
        this.ep = ep;
        this.channelId = channelId;
        direct = new DirectSendLane(channel);
        depth = ep.sendDepth;
        inFlight = new SendQueueEntry[depth + 1];
        for (int i = 0; i < inFlight.length; i++) {
            inFlight[i] = new SendQueueEntry();
        }
    }

    /** Sends the direct lane took ({@link #sendDirect}). */
    int directSends() {
        return direct.taken();
    }

    /** Work requests posted and not retired yet. */
    int inFlight() {
        return tail - head;
    }

    /**
     * Posts what the outbound buffer holds, as far as the send queue has room. A promise listener that flushes from
     * inside a pass (the removals run listeners) only asks for another pass.
     */
    void write(ChannelOutboundBuffer in) {
        outbound = in;
        if (writing) {
            writeAgain = true;
            return;
        }
        writing = true;
        try {
            do {
                writeAgain = false;
                writePass(in);
            } while (writeAgain);
        } finally {
            writing = false;
        }
    }

    /**
     * The direct send lane ({@link RdmaChannel#sendDirect}, the outbound buffer {@code out} empty): stages the Send
     * {@code msg} in the chain and accounts for it as posted. With a void promise and {@code defer} (inside the
     * channel's completion batch) the chain is posted at the batch's end ({@link #postDirect}) or when something
     * else posts it first, in order; otherwise it is posted at once, and the Send released and its promise succeeded,
     * as a pass over the outbound buffer does for a Send at its head (its bytes were copied). A failed post fails the
     * promise and the channel. Returns false, having done nothing, when the Send cannot go out this way now: not a
     * Send the outbound buffer would take as it is, a promise already done, no room in the send queue, the channel
     * closing or failed, or inside a write pass (a promise listener writing: the pass posts it after its own). A
     * close beginning posts the staged Sends first ({@link #postDirect}), as the pipeline would have posted them.
     */
    boolean sendDirect(ChannelOutboundBuffer out, Object msg, ChannelPromise promise, boolean defer) {
        if (writing || chained != direct.count() || inFlight() >= depth || !channel.canPost() || promise.isDone()) {
            return false;
        }
        ByteBuf content;
        if (msg instanceof ByteBuf) {
            content = (ByteBuf) msg;
        } else if (msg instanceof RdmaSend) {
            content = ((RdmaSend) msg).content();
        } else {
            return false;
        }
        if (msg == Unpooled.EMPTY_BUFFER || content.readableBytes() > channel.maxSendSize()
                || !promise.setUncancellable()) {
            return false;
        }
        outbound = out;
        boolean signal = ++unsignaledRun >= signalInterval();
        if (signal) {
            unsignaledRun = 0;
        }
        // Recorded first: a chain that fills up is posted from inside stage(), and finishes its direct Sends then.
        direct.add(msg, promise, tail);
        try {
            stage(msg, signal, false);
            if (!defer || !promise.isVoid()) {
                postChain();
            }
        } catch (IOException | RuntimeException ex) {
            abandonChain(ex); // what the device rejected is unstaged, its Sends failed; the rest is forgotten
            channel.fail(ex);
        }
        updateWritability(out);
        return true;
    }

    /**
     * The end of a completion batch, or a close beginning: posts the Sends the direct lane staged (written, as far as
     * their writers know: a write through the pipeline would have posted them then, whatever came after in the
     * batch). A failed post fails the channel ({@code report}: the pipeline hears of it; else it is only recorded,
     * the close being under way).
     */
    void postDirect(boolean report) {
        if (chained == 0) {
            return;
        }
        try {
            postChain();
        } catch (IOException | RuntimeException ex) {
            if (report) {
                channel.fail(ex);
            } else {
                channel.recordFailure(ex);
            }
        }
        ChannelOutboundBuffer in = outbound;
        if (in != null) {
            updateWritability(in);
        }
    }

    /** After completions freed entries: posts what waits in the outbound buffer. */
    void writeMore() {
        ChannelOutboundBuffer in = outbound;
        if (in != null && in.size() > heldInBuffer) {
            write(in);
        }
    }

    private void writePass(ChannelOutboundBuffer in) {
        if (!channel.canPost()) {
            return;
        }
        try {
            if (heldInBuffer == 0) {
                postSendsFromHead(in);
            }
            if (channel.canPost()) {
                postHeld(in);
            }
        } catch (IOException ex) {
            // Posting failed: what was posted stays owned by the device; the channel fails as a whole.
            channel.fail(ex);
        }
        updateWritability(in);
    }

    /**
     * Sets the writability bit when it changes, not per pass: Netty's {@code setUserDefinedWritability} is a
     * compare-and-set loop on the outbound buffer's flags even when nothing changes.
     */
    private void updateWritability(ChannelOutboundBuffer in) {
        boolean writable = inFlight() < depth;
        if (writable != writabilitySet || in != writabilityOf) {
            writabilitySet = writable;
            writabilityOf = in;
            in.setUserDefinedWritability(WRITABILITY_BIT, writable);
        }
    }

    /**
     * While nothing posted waits in the outbound buffer, posts the Sends at its head in chains and removes each
     * posted one (its bytes were copied). Signalled one in {@link #signalInterval()}. Stops at the first RDMA Read,
     * RDMA Write or Bind, whose promise needs its completion.
     */
    private void postSendsFromHead(ChannelOutboundBuffer in) throws IOException {
        while (channel.canPost()) {
            int room = depth - inFlight();
            if (room <= 0) {
                return;
            }
            HeadSends h = headSends;
            h.start(Math.min(room, QueuePair.MAX_POST_CHAIN));
            try {
                in.forEachFlushedMessage(h);
            } catch (Exception ex) {
                abandonChain(ex);
                throw ex instanceof IOException ? (IOException) ex : new IOException(ex);
            }
            if (h.staged == 0) {
                return;
            }
            postChain();
            // in.remove() runs the promise's listeners, which may write, flush (another pass) or close (which fails
            // what is left in the buffer: nothing to remove then).
            for (int i = 0; i < h.staged && channel.canPost(); i++) {
                skipCancelled(in);
                in.remove();
            }
            if (!h.stoppedAtLimit) {
                return;
            }
        }
    }

    /** Stages the Sends at the head of the flushed messages, up to a limit; stops at anything else. */
    private final class HeadSends implements ChannelOutboundBuffer.MessageProcessor {
        private int limit;
        int staged;
        boolean stoppedAtLimit;

        void start(int limit) {
            this.limit = limit;
            staged = 0;
            stoppedAtLimit = false;
        }

        @Override
        public boolean processMessage(Object msg) throws Exception {
            if (!(msg instanceof ByteBuf || msg instanceof RdmaSend)) {
                return false;
            }
            boolean signal = ++unsignaledRun >= signalInterval();
            if (signal) {
                unsignaledRun = 0;
            }
            stage(msg, signal, false);
            if (++staged == limit) {
                stoppedAtLimit = true;
                return false;
            }
            return true;
        }
    }

    /**
     * Posts the flushed messages after the {@link #heldInBuffer} already posted ones, keeping each in the outbound
     * buffer until its completion. The last one posted is signalled, so every held message gets its completion.
     */
    private void postHeld(ChannelOutboundBuffer in) {
        int skip = heldInBuffer;
        int room = depth - inFlight();
        if (room <= 0 || in.size() <= skip) {
            return;
        }
        // Count what can be posted now (cancelled entries are not visited), so that the last one is signalled.
        FlushedMessages m = flushed;
        m.start(skip, skip + room, false);
        try {
            in.forEachFlushedMessage(m);
        } catch (Exception impossible) {
            throw new IllegalStateException(impossible);
        }
        int toPost = Math.min(m.visited - skip, room);
        if (toPost > 0) {
            m.start(skip, toPost, true);
            try {
                in.forEachFlushedMessage(m);
                postChain();
            } catch (Exception ex) {
                abandonChain(ex);
                channel.fail(ex);
            }
        }
    }

    /**
     * At least one work request in this many is signalled, so that the send queue's entries are reclaimed; every one
     * on iWARP ({@link RdmaEndpoint#signalEverySend}).
     */
    private int signalInterval() {
        return ep.signalEverySend ? 1 : Math.max(1, depth / 2);
    }

    /**
     * The two walks of {@link #postHeld} over the flushed messages, as one reusable processor (no allocation per
     * flush): counting the visible ones up to a limit, then posting {@code limit} of them after {@code skip}.
     */
    private final class FlushedMessages implements ChannelOutboundBuffer.MessageProcessor {
        private boolean posting;
        private int skip;
        private int limit;
        int visited;
        private int posted;

        void start(int skip, int limit, boolean posting) {
            this.skip = skip;
            this.limit = limit;
            this.posting = posting;
            visited = 0;
            posted = 0;
        }

        @Override
        public boolean processMessage(Object msg) throws Exception {
            if (!posting) {
                return ++visited < limit;
            }
            if (visited++ < skip) {
                return true;
            }
            boolean last = posted == limit - 1;
            boolean signal = last || ++unsignaledRun >= signalInterval();
            if (signal) {
                unsignaledRun = 0;
            }
            stage(msg, signal, true);
            return ++posted < limit;
        }
    }

    /**
     * Stages one message as the next work request of the chain (posted by {@link #postChain}, at once when the chain
     * is full) and accounts for it as posted; {@code held}: it stays in the outbound buffer until retired.
     */
    private void stage(Object msg, boolean signal, boolean held) throws IOException {
        int seq = tail;
        SendChain wr = ep.qp.sendChain(); // written once, straight into the native chain on a native queue pair
        wr.begin(wrId(seq), signal ? SendFlags.SIGNALED : 0);
        SendQueueEntry f = inFlight[Integer.remainderUnsigned(seq, inFlight.length)];
        f.encode(wr, msg, ep, wrId(seq), signal ? SendFlags.SIGNALED : 0);
        if (f.kind == SendQueueEntry.RDMA_READ) {
            readsInFlight++;
        } else if (readsInFlight > 0 && ep.fenceBehindReads) {
            wr.sendFlags(wr.sendFlags() | SendFlags.FENCE);
        }
        if (f.memory != null) {
            f.memory.use();
        }
        f.held = held;
        f.signaled = signal;
        if (held) {
            heldInBuffer++;
        }
        lastPostedSignaled = signal;
        tail++;
        if (++chained == QueuePair.MAX_POST_CHAIN) {
            postChain();
        }
    }

    private long wrId(int seq) {
        return WorkRequestIds.encode(channelId, WorkRequestIds.SEND_QUEUE, seq);
    }

    /** Posts the staged chain with one {@code ibv_post_send}; what the device rejected is unstaged. */
    private void postChain() throws IOException {
        int n = chained;
        if (n == 0) {
            return;
        }
        chained = 0;
        int first = tail - n;
        try {
            ep.qp.sendChain().post();
        } catch (PostException ex) {
            unstage(first + ex.posted());
            direct.finish(first + ex.posted(), ex);
            throw ex;
        } catch (IOException | RuntimeException ex) {
            unstage(first);
            direct.finish(first, ex);
            throw ex;
        }
        direct.finish(tail, null);
    }

    /** Forgets a chain that will not be posted ({@code cause}: the failure while staging it). */
    private void abandonChain(Throwable cause) {
        int n = chained;
        chained = 0;
        QueuePair qp = ep.qp;
        if (qp != null) {
            qp.sendChain().clear(); // and a request half begun
        }
        int first = tail - n;
        unstage(first);
        direct.finish(first, cause);
    }

    /** Undoes the accounting of the staged requests from sequence {@code from} on (they were never posted). */
    private void unstage(int from) {
        while (tail - from > 0) {
            tail--;
            SendQueueEntry f = inFlight[Integer.remainderUnsigned(tail, inFlight.length)];
            if (f.sendSlot >= 0) {
                ep.freeSendSlot(f.sendSlot);
            }
            if (f.memory != null) {
                f.memory.unuse();
            }
            if (f.held) {
                heldInBuffer--;
            }
            if (f.kind == SendQueueEntry.RDMA_READ) {
                readsInFlight--;
            }
            f.reset(SendQueueEntry.SEND);
        }
        lastPostedSignaled = tail == head || inFlight[Integer.remainderUnsigned(tail - 1, inFlight.length)].signaled;
    }

    /**
     * Retires every work request up to and including sequence {@code seq}, whose completion had {@code status}:
     * frees send slots, releases memory uses, marks bound windows, and completes the promises of held messages
     * (a failure's cause is reported to the channel once).
     */
    void retire(int seq, int status) {
        while (head - seq <= 0 && head != tail) {
            SendQueueEntry f = inFlight[Integer.remainderUnsigned(head, inFlight.length)];
            int st = head == seq ? status : WcStatus.SUCCESS;
            head++;
            if (f.kind == SendQueueEntry.RDMA_READ) {
                readsInFlight--;
            }
            if (f.sendSlot >= 0) {
                ep.freeSendSlot(f.sendSlot);
            }
            if (f.memory != null) {
                f.memory.unuse();
            }
            Throwable cause = null;
            if (st == WcStatus.SUCCESS) {
                if (f.bind != null) {
                    channel.registry().bound(f.bind.window(), f.bind.rkey(), f.bind.memory());
                } else if (f.invalidate != null) {
                    channel.registry().invalidatedLocally(f.invalidate.window(), f.invalidate.rkey());
                }
            } else if (f.kind != SendQueueEntry.DRAIN_MARKER) {
                cause = channel.failures.workRequestFailed(f.name(), st, f.held);
            }
            boolean held = f.held;
            f.reset(SendQueueEntry.SEND);
            if (held) {
                heldInBuffer--;
                ChannelOutboundBuffer in = outbound;
                skipCancelled(in);
                if (in != null && in.current() != null) {
                    if (cause == null) {
                        in.remove();
                    } else {
                        in.remove(cause);
                    }
                }
            }
        }
        if (outbound != null) {
            updateWritability(outbound);
        }
    }

    /**
     * Removes writes cancelled before they were flushed from the head: the outbound buffer keeps them as flushed
     * entries holding {@link Unpooled#EMPTY_BUFFER} but never shows them to {@code forEachFlushedMessage}.
     */
    private static void skipCancelled(ChannelOutboundBuffer in) {
        while (in != null && in.current() == Unpooled.EMPTY_BUFFER) {
            in.remove();
        }
    }

    /**
     * Closing, the queue pair in error: an unsignalled work request that completed successfully leaves no
     * completion, and the flush covers only those still queued. So when the last one posted was unsignalled, a
     * signalled zero-length RDMA Write is posted behind it (into the entry reserved for it): it flushes, and its
     * completion retires everything before it (as the kernel's {@code ib_drain_sq}). Zero length: no memory is
     * touched even if the queue pair did not go to error. False if it could not be posted. Never needed on iWARP, where
     * every request is signalled, and a request posted after the state change is not flushed (Linux siw_verbs.c).
     */
    boolean postDrainMarker() {
        if (chained > 0) {
            // Never expected: the close posts the direct lane's Sends before it begins. The marker's sequence must
            // follow every staged one, so these are forgotten rather than posted behind the state change.
            abandonChain(new ClosedChannelException());
        }
        if (inFlight() == 0 || lastPostedSignaled) {
            return true;
        }
        int seq = tail;
        drainMarker.clear().wrId(wrId(seq)).sendFlags(SendFlags.SIGNALED);
        drainMarker.opcode(WrOpcode.RDMA_WRITE).remote(0, 0);
        try {
            ep.qp.postSend(drainMarker);
        } catch (IOException ex) {
            return false;
        }
        SendQueueEntry f = inFlight[Integer.remainderUnsigned(seq, inFlight.length)];
        f.reset(SendQueueEntry.DRAIN_MARKER);
        f.signaled = true;
        lastPostedSignaled = true;
        tail++;
        return true;
    }
}
