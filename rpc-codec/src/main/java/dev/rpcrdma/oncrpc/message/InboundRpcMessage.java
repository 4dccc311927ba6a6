package dev.rpcrdma.oncrpc.message;

import dev.rpcrdma.oncrpc.server.RpcReplyEntry;
import dev.rpcrdma.oncrpc.xdr.LocalPool;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.Recycler;
import io.netty.util.ReferenceCounted;

import io.netty.util.internal.ObjectUtil;
import java.util.Deque;

/**
 * A received RPC message: its decoded {@link RpcMessage header} and its body (a call's arguments or a successful
 * reply's results) as an {@link XdrReader} positioned after the header. The body is the rest of the inline
 * XDR plus any data an RDMA transport already placed (RFC 8166 §3.4; empty over TCP).
 *
 * <p>Ownership: reference-counted; owns the inline buffer and the placed buffers not yet taken through
 * {@link XdrReader#readDdpOpaque(int)}. The last handler to use it releases it. Produced by
 * {@link RpcMessageCodec#decode} from a per-thread pool: the message, its reader and its header go back to it when
 * it is released, so, like a pooled buffer, none of them may be used after the last release ({@link
 * RpcMessage#copy()} keeps the header).
 */
public final class InboundRpcMessage extends AbstractReferenceCounted {

    private static final LocalPool<InboundRpcMessage> POOL = new LocalPool<>(new Recycler<InboundRpcMessage>() {
        @Override
        protected InboundRpcMessage newObject(Handle<InboundRpcMessage> handle) {
            return new InboundRpcMessage(handle);
        }
    });

    private final Recycler.Handle<InboundRpcMessage> handle;
    /** Reused with this message. */
    private final XdrReader body = new XdrReader(Unpooled.EMPTY_BUFFER);
    private RpcMessage header;
    private ByteBuf buffer;
    private Deque<ByteBuf> placed;
    private int size;
    private long reducedBytes;
    /** The transport handler that takes this call's reply directly, or null. */
    private RpcReplyEntry replyEntry;

    private InboundRpcMessage(Recycler.Handle<InboundRpcMessage> handle) {
        this.handle = handle;
    }

    /**
     * A message from the pool over {@code buffer} (and {@code placed}: null for inline only, TCP), its header not
     * decoded yet; takes ownership of the buffers.
     */
    static InboundRpcMessage pooled(ByteBuf buffer, Deque<ByteBuf> placed) {
        InboundRpcMessage m = POOL.get();
        m.setRefCnt(1);
        m.buffer = buffer;
        m.size = buffer.readableBytes();
        m.reducedBytes = 0;
        m.placed = placed;
        m.body.reset(buffer, placed);
        return m;
    }

    /** Sets the header decoded through {@link #body()}. */
    InboundRpcMessage header(RpcMessage header) {
        this.header = header;
        return this;
    }

    /** Gives back a message whose header could not be decoded; its buffers stay the caller's. */
    void discard() {
        clear();
    }

    /** Creates a message from an already-decoded header and a body; takes ownership of the buffers. */
    public static InboundRpcMessage of(RpcMessage header, ByteBuf body, Deque<ByteBuf> placed) {
        return pooled(body, placed).header(ObjectUtil.checkNotNull(header, "header").copy());
    }

    /** Creates a message from an already-decoded header and an inline body; takes ownership of it. */
    public static InboundRpcMessage of(RpcMessage header, ByteBuf body) {
        return of(header, ObjectUtil.checkNotNull(body, "body"), null);
    }

    /**
     * The bytes of the message received in line, header included: over TCP the whole record, over RPC-over-RDMA
     * without the data placed directly (Read or Write chunks).
     */
    public int size() {
        return size;
    }

    /**
     * The bytes of the body that travelled as reduced DDP-eligible items (RFC 8166 §3.4: Read chunks at a non-zero
     * position, which the transport put back into the stream), 0 over TCP or when nothing was reduced. RPCSEC_GSS
     * integrity and privacy refuse such a call (RFC 8166 §8.2.2.3).
     */
    public long reducedBytes() {
        return reducedBytes;
    }

    /** Records what {@link #reducedBytes()} says (the RPC-over-RDMA responder); this. */
    public InboundRpcMessage reducedBytes(long bytes) {
        this.reducedBytes = bytes;
        return this;
    }

    /**
     * The transport handler that takes this call's reply without the pipeline's machinery when it sits right below
     * the dispatcher ({@link RpcReplyEntry}, internal to this project's transports), or null.
     */
    public RpcReplyEntry replyEntry() {
        return replyEntry;
    }

    /** Records what {@link #replyEntry()} says (the RPC-over-RDMA responder); this. */
    public InboundRpcMessage replyEntry(RpcReplyEntry entry) {
        this.replyEntry = entry;
        return this;
    }

    /** The header; valid until this message is released. */
    public RpcMessage header() {
        return header;
    }

    /** The body reader (arguments or results), valid until this message is released. */
    public XdrReader body() {
        return body;
    }

    @Override
    public InboundRpcMessage retain() {
        super.retain();
        return this;
    }

    @Override
    public InboundRpcMessage touch() {
        buffer.touch();
        return this;
    }

    @Override
    public ReferenceCounted touch(Object hint) {
        buffer.touch(hint);
        return this;
    }

    @Override
    protected void deallocate() {
        buffer.release();
        if (placed != null) {
            ByteBuf b;
            while ((b = placed.pollFirst()) != null) {
                b.release();
            }
        }
        RpcMessage h = header;
        clear();
        if (h != null) {
            h.recycle();
        }
    }

    private void clear() {
        header = null;
        buffer = null;
        placed = null;
        reducedBytes = 0;
        replyEntry = null;
        body.reset(Unpooled.EMPTY_BUFFER, null);
        POOL.recycle(this, handle);
    }

    @Override
    public String toString() {
        ByteBuf b = buffer;
        return "InboundRpcMessage(" + header + ", body=" + (b == null ? "released" : b.readableBytes() + " bytes")
                + (placed == null || placed.isEmpty() ? "" : ", placed=" + placed.size()) + ')';
    }
}
