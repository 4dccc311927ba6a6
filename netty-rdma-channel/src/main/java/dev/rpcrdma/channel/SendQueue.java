package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.PostException;
import dev.rpcrdma.channel.fabric.QueuePair;
import dev.rpcrdma.channel.fabric.SendFlags;
import dev.rpcrdma.channel.fabric.SendChain;
import dev.rpcrdma.channel.fabric.SendWorkRequest;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.channel.fabric.WrOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;

/**
 * The send side of one {@link RdmaChannel}'s queue pair (io_uring's {@code SubmissionQueue} plus the channel's
 * write scheduling): a ring of in-flight entries, one per send-queue entry, indexed by a sequence number carried in
 * the {@code wr_id}; staging of the outbound buffer's messages as work requests, posted in chains of up to
 * {@link QueuePair#MAX_POST_CHAIN} (one {@code ibv_post_send}, one doorbell); selective signalling (one in half the
 * queue, and the last of a flush whose message waits for its completion); unstaging of what the device rejected;
 * retiring on a signalled completion (which retires every earlier unsignalled entry: completions are in order);
 * send slots for Sends larger than the inline threshold; the channel's writability (user-defined bit 1: at most
 * {@code sendDepth} requests outstanding); and the drain marker of close (the queue pair has one entry more for it).
 *
 * <p>Ownership: a Send's bytes are copied when it is posted (inline into the work request, else into a registered
 * send slot), so it is removed from the outbound buffer, released and its promise completed then. RDMA Read, RDMA
 * Write and Bind stay in the outbound buffer ("held") until their completion retires them, and a Send behind one of
 * them waits with it, so promises complete in write order. Event-loop confined.
 */
final class SendQueue {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(SendQueue.class);
    private static final int WRITABILITY_BIT = 1;

    /** What an entry carries, for error messages; the drain marker's failure is expected (it is posted to a QP in error). */
    private static final int SEND = 0;
    private static final int SEND_WITH_INVALIDATE = 1;
    private static final int RDMA_WRITE = 2;
    private static final int RDMA_READ = 3;
    private static final int BIND_WINDOW = 4;
    private static final int DRAIN_MARKER = 5;
    private static final int LOCAL_INVALIDATE = 6;
    private static final String[] NAMES = {
        "Send", "Send With Invalidate", "RDMA Write", "RDMA Read", "Bind Memory Window", "drain marker",
        "Local Invalidate"
    };

    private final RdmaChannel channel;
    private final RdmaEndpoint ep;
    private final int channelId;
    /** Work requests the channel may have outstanding (writability); the queue pair has one entry more. */
    private final int depth;
    /** One entry per send queue entry: {@code depth} for writes plus one for the drain marker. */
    private final InFlight[] inFlight;
    private final SendWorkRequest drainMarker = new SendWorkRequest();
    private final FlushedMessages flushed = new FlushedMessages();
    private final HeadSends headSends = new HeadSends();
    /** Requests staged by this pass in the queue pair's {@link SendChain} (one more may be half begun). */
    private int chained;
    /**
     * The direct lane's Sends in the chain ({@link #sendDirect}), in order, and their sequence numbers: released and
     * their promises completed once the chain is posted (an inline Send's bytes are read by the post).
     */
    private final Object[] directMessages = new Object[QueuePair.MAX_POST_CHAIN];
    private final ChannelPromise[] directPromises = new ChannelPromise[QueuePair.MAX_POST_CHAIN];
    private final int[] directSeqs = new int[QueuePair.MAX_POST_CHAIN];
    private int directCount;
    /** Sends the direct lane took, for tests ({@code DirectSends} in the test-jar). */
    private int directSends;
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
        depth = ep.sendDepth;
        inFlight = new InFlight[depth + 1];
        for (int i = 0; i < inFlight.length; i++) {
            inFlight[i] = new InFlight();
        }
    }

    /** What one posted work request holds until it is retired; one per send-queue entry, reused. */
    private static final class InFlight {
        int kind;
        int sendSlot = -1;
        RdmaMemory memory;
        RdmaBindWindow bind;
        RdmaLocalInvalidate invalidate;
        /** The message is still in the outbound buffer: retiring this entry completes its promise. */
        boolean held;
        boolean signaled;

        InFlight reset(int kind) {
            this.kind = kind;
            sendSlot = -1;
            memory = null;
            bind = null;
            invalidate = null;
            held = false;
            signaled = false;
            return this;
        }
    }

    /** Sends the direct lane took ({@link #sendDirect}). */
    int directSends() {
        return directSends;
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
        if (writing || chained != directCount || inFlight() >= depth || !channel.canPost() || promise.isDone()) {
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
        directSends++;
        int i = directCount++;
        directMessages[i] = msg;
        directPromises[i] = promise;
        directSeqs[i] = tail;
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

    /**
     * The direct lane's Sends staged before sequence {@code postedBefore} were posted: released, promises succeeded;
     * the rest were not (unstaged): released, promises failed with {@code cause}, the failure recorded first so that
     * no listener posts behind them.
     */
    private void finishDirect(int postedBefore, Throwable cause) {
        int n = directCount;
        if (n == 0) {
            return;
        }
        directCount = 0; // a listener may send again (into the emptied lists)
        boolean failed = false;
        for (int i = 0; i < n; i++) {
            Object msg = directMessages[i];
            directMessages[i] = null;
            releaseSend(msg);
            failed |= directSeqs[i] - postedBefore >= 0;
        }
        if (failed && channel.canPost()) {
            channel.recordFailure(cause);
        }
        // Only a non-void promise runs listeners that may send again (into index 0 on): a Send with one is posted at
        // once, so it is the chain's last, completed after every other; a failure stops the lane first.
        for (int i = 0; i < n; i++) {
            ChannelPromise p = directPromises[i];
            directPromises[i] = null;
            if (directSeqs[i] - postedBefore >= 0) {
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
        InFlight f = inFlight[Integer.remainderUnsigned(seq, inFlight.length)];
        if (msg instanceof ByteBuf || msg instanceof RdmaSend) {
            RdmaSend send = msg instanceof RdmaSend ? (RdmaSend) msg : null;
            ByteBuf content = send != null ? send.content() : (ByteBuf) msg;
            f.reset(sendOpcode(wr, send));
            int length = content.readableBytes();
            if (length > 0 && !(length <= ep.maxInline && addInline(wr, content, ep.maxSendSge))) {
                wr.restart(wrId(seq), signal ? SendFlags.SIGNALED : 0);
                sendOpcode(wr, send);
                int slot = ep.allocateSendSlot();
                if (slot < 0) {
                    throw new IllegalStateException("no free send slot although the send queue has room");
                }
                content.getBytes(content.readerIndex(), ep.sendSlab, slot * ep.sendSlotSize, length);
                wr.addSge(ep.sendSlotAddress(slot), length, ep.sendRegion.lkey());
                f.sendSlot = slot;
            }
        } else if (msg instanceof RdmaOneSidedOperation) {
            RdmaOneSidedOperation a = (RdmaOneSidedOperation) msg;
            boolean write = a instanceof RdmaWrite;
            wr.opcode(write ? WrOpcode.RDMA_WRITE : WrOpcode.RDMA_READ);
            wr.addSge(a.local().address() + a.offset(), a.length(), a.local().lkey());
            wr.remote(a.remoteAddress(), a.rkey());
            f.reset(write ? RDMA_WRITE : RDMA_READ);
            f.memory = a.local();
        } else if (msg instanceof RdmaLocalInvalidate) {
            RdmaLocalInvalidate li = (RdmaLocalInvalidate) msg;
            wr.opcode(WrOpcode.LOCAL_INV);
            wr.invalidateRkey(li.rkey());
            f.reset(LOCAL_INVALIDATE);
            f.invalidate = li;
        } else {
            RdmaBindWindow b = (RdmaBindWindow) msg;
            wr.opcode(WrOpcode.BIND_MW);
            wr.bind(b.window().window, b.rkey(), b.memory().region(), b.address(),
                    b.length(), b.access());
            f.reset(BIND_WINDOW);
            f.memory = b.memory();
            f.bind = b;
        }
        if (f.kind == RDMA_READ) {
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

    private static int sendOpcode(SendChain wr, RdmaSend send) {
        if (send != null && send.isInvalidate()) {
            wr.opcode(WrOpcode.SEND_WITH_INV);
            wr.invalidateRkey(send.invalidateRkey());
            return SEND_WITH_INVALIDATE;
        }
        wr.opcode(WrOpcode.SEND);
        return SEND;
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
            finishDirect(first + ex.posted(), ex);
            throw ex;
        } catch (IOException | RuntimeException ex) {
            unstage(first);
            finishDirect(first, ex);
            throw ex;
        }
        finishDirect(tail, null);
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
        finishDirect(first, cause);
    }

    /** Undoes the accounting of the staged requests from sequence {@code from} on (they were never posted). */
    private void unstage(int from) {
        while (tail - from > 0) {
            tail--;
            InFlight f = inFlight[Integer.remainderUnsigned(tail, inFlight.length)];
            if (f.sendSlot >= 0) {
                ep.freeSendSlot(f.sendSlot);
            }
            if (f.memory != null) {
                f.memory.unuse();
            }
            if (f.held) {
                heldInBuffer--;
            }
            if (f.kind == RDMA_READ) {
                readsInFlight--;
            }
            f.reset(SEND);
        }
        lastPostedSignaled = tail == head || inFlight[Integer.remainderUnsigned(tail - 1, inFlight.length)].signaled;
    }

    /**
     * Adds the content's components as inline SGEs to {@code wr}; false if a component has no memory address or there
     * are more than {@code maxSge} (what the queue pair was granted) of them.
     */
    private static boolean addInline(SendChain wr, ByteBuf content, int maxSge) {
        int length = content.readableBytes();
        if (content.hasMemoryAddress()) {
            wr.addSge(content.memoryAddress() + content.readerIndex(), length, 0);
        } else if (content instanceof CompositeByteBuf && content.nioBufferCount() <= maxSge) {
            CompositeByteBuf c = (CompositeByteBuf) content;
            int offset = c.readerIndex();
            int end = offset + length;
            while (offset < end) {
                int ci = c.toComponentIndex(offset);
                ByteBuf component = c.internalComponent(ci);
                int componentStart = c.toByteIndex(ci);
                int n = Math.min(end - offset, component.readableBytes() - (offset - componentStart));
                if (!component.hasMemoryAddress() || wr.numSge() == maxSge) {
                    return false;
                }
                if (n > 0) {
                    wr.addSge(component.memoryAddress() + component.readerIndex() + (offset - componentStart), n, 0);
                }
                offset += n;
            }
        } else {
            return false;
        }
        wr.sendFlags(wr.sendFlags() | SendFlags.INLINE);
        return true;
    }

    /**
     * Retires every work request up to and including sequence {@code seq}, whose completion had {@code status}:
     * frees send slots, releases memory uses, marks bound windows, and completes the promises of held messages
     * (a failure's cause is reported to the channel once).
     */
    void retire(int seq, int status) {
        while (head - seq <= 0 && head != tail) {
            InFlight f = inFlight[Integer.remainderUnsigned(head, inFlight.length)];
            int st = head == seq ? status : WcStatus.SUCCESS;
            head++;
            if (f.kind == RDMA_READ) {
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
            } else if (f.kind != DRAIN_MARKER) {
                cause = channel.workRequestFailed(NAMES[f.kind], st, f.held);
            }
            boolean held = f.held;
            f.reset(SEND);
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
        InFlight f = inFlight[Integer.remainderUnsigned(seq, inFlight.length)];
        f.reset(DRAIN_MARKER);
        f.signaled = true;
        lastPostedSignaled = true;
        tail++;
        return true;
    }
}
