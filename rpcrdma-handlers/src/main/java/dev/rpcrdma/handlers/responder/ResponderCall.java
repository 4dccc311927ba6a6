package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.util.ReferenceCountUtil;

import java.util.ArrayList;
import java.util.List;

/**
 * One forward call a responder received, from its transport header to its reply: the per-call context the
 * responder's call table holds by xid. It keeps the call's header (its Write list and Reply chunk are where the
 * reply goes, RFC 8166 §3.4.6) and, while its Read chunks are pulled, the pull: the reassembly plan, the inline part,
 * the target buffer (in the connection's registered memory pool, local write only), and how many RDMA Reads are
 * still in flight. As the listener of those Reads it tells the responder when the last one completed; then
 * {@link #assemble} builds the call's XDR stream ({@link CallReassembly}). As the listener of a reply's Send it
 * gives the reply's pool buffer back. Pooled per responder: reused once its reply was sent and, when the reply had
 * local memory (RDMA Write sources, Long Reply), its Send completed. Event-loop confined, like its responder.
 */
final class ResponderCall implements ChannelFutureListener {

    /**
     * Stands for the header of a call received with the plain RDMA_MSG header (no chunk lists, RFC 8166 §4.1) that
     * was not decoded into an object: its lists are the call's (empty); its xid and credits are not, see
     * {@link #xid()} and {@link #credits}.
     */
    static final RpcRdmaHeader PLAIN = RpcRdmaHeader.msg(0, 0);

    private final RpcRdmaResponder responder;
    /** The call's transport header (its chunk lists), {@link #PLAIN} for a plain one. */
    RpcRdmaHeader header;
    private int xid;
    /** The requester's rdma_credit (RFC 8166 §3.3.1). */
    int credits;
    /** On its responder's free list. */
    boolean pooled;
    /** Passed up the pipeline: any pull is over, and only the reply may still be in flight. */
    boolean delivered;
    /** Byte framing: the call's program, version and procedure, for the upper-layer binding of its reply. */
    int program;
    int version;
    int procedure;

    // The pull of the Read chunks (RFC 8166 §3.4.5), while one is in flight.
    private CallReassembly plan;
    private List<ReadChunk> chunks;
    private ByteBuf inline;
    private ByteBuf target;
    private int pendingReads;
    private boolean readFailed;
    /** The chunks are pulled to their positions in {@code target}, which becomes the whole message. */
    private boolean inPlace;

    // The reply's local memory (RDMA Write sources and the Long Reply), until its Send completed.
    private ByteBuf replyRegion;
    private RdmaMemory replyRegistration;

    ResponderCall(RpcRdmaResponder responder) {
        this.responder = responder;
    }

    /** Starts a call (a new or recycled object). */
    ResponderCall init(RpcRdmaHeader header, int xid, int credits) {
        this.header = header;
        this.xid = xid;
        this.credits = credits;
        this.pooled = false;
        this.delivered = false;
        return this;
    }

    int xid() {
        return xid;
    }

    /** Nothing in flight references this call: delivered, no pull under way, no reply memory waiting for its Send. */
    boolean idle() {
        return delivered && pendingReads == 0 && target == null && inline == null && replyRegion == null;
    }

    /** Forgets the call before the object is reused. Only when {@link #idle()}. */
    void clear() {
        header = null;
        plan = null;
        chunks = null;
        readFailed = false;
    }

    /**
     * Starts a pull: {@code target} (owned; a pool buffer, empty when nothing is to be read) receives the chunks in
     * order, or each at its position in the whole message when {@code inPlace}; {@code inline} (owned, may be null
     * for a Long Call) is the inline part of the message.
     */
    void pulling(CallReassembly plan, List<ReadChunk> chunks, ByteBuf inline, ByteBuf target, int reads,
                 boolean inPlace) {
        this.inPlace = inPlace;
        this.plan = plan;
        this.chunks = chunks;
        this.inline = inline;
        this.target = target;
        this.pendingReads = reads;
    }

    /**
     * The reply's buffer (owned), released once the Send that follows its Writes completed: a pool buffer, or
     * (pool exhausted) one registered for this reply alone as {@code registration}, deregistered then.
     */
    void replying(ByteBuf region, RdmaMemory registration) {
        this.replyRegion = region;
        this.replyRegistration = registration;
    }

    @Override
    public void operationComplete(ChannelFuture f) {
        if (replyRegion != null) {
            // The reply's Send completed (after its RDMA Writes: one send queue, in order): the Writes' source goes
            // back to the pool.
            if (replyRegistration != null) {
                replyRegistration.deregister();
                replyRegistration = null;
            }
            replyRegion.release();
            replyRegion = null;
            responder.recycle(this);
            return;
        }
        if (!f.isSuccess() && !readFailed) {
            readFailed = true;
            responder.readFailed(this, f.cause());
        }
        if (--pendingReads == 0) {
            responder.pulled(this, readFailed);
        }
    }

    /** Releases what the pull holds (after a failed pull). */
    void releasePull() {
        ReferenceCountUtil.release(target);
        ReferenceCountUtil.release(inline);
        target = null;
        inline = null;
    }

    /** The bytes that came in Read chunks at non-zero positions (reduced data items), 0 if none. */
    long reducedBytes() {
        return plan == null ? 0 : plan.reducedBytes();
    }

    /** The call's XDR stream from the pulled chunks and the inline part; the pull's buffers pass into it. */
    ByteBuf assemble(ByteBufAllocator alloc) {
        if (inPlace) {
            ByteBuf stream = plan.assembleInPlace(inline, target);
            target = null;
            inline = null;
            return stream;
        }
        try {
            int offset = 0;
            ByteBuf base = inline;
            List<ByteBuf> data = new ArrayList<>(plan.inserted.size());
            for (ReadChunk c : chunks) {
                ByteBuf slice = target.retainedSlice(offset, (int) c.length());
                offset += (int) c.length();
                if (c == plan.positionZero) {
                    base = slice;
                } else {
                    data.add(slice);
                }
            }
            return plan.assemble(alloc, base, data);
        } finally {
            target.release();
            target = null;
            inline = null;
        }
    }
}
