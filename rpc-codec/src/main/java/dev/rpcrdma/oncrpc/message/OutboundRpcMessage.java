package dev.rpcrdma.oncrpc.message;

import dev.rpcrdma.oncrpc.xdr.LocalPool;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.Recycler;
import io.netty.util.ReferenceCounted;
import io.netty.util.internal.ObjectUtil;

/**
 * An RPC message to send: a {@link RpcMessage header} and an {@link XdrPayload body} (a call's arguments, a
 * successful reply's results, empty otherwise). Transports turn it into bytes with
 * {@link RpcMessageCodec#encode}: TCP writes the payload inline; RPC-over-RDMA may move its DDP-eligible items
 * into chunks.
 *
 * <p>Ownership: reference-counted; owns the body. Whoever writes it to a channel hands it over; the transport
 * releases it. A message made by {@link #newCall} or {@link #newReply} (the client's and the dispatcher's
 * allocation-free path) comes from a per-thread pool with its header, and both go back to it when the message is
 * released: like a pooled buffer, neither may be used after the last release.
 */
public final class OutboundRpcMessage extends AbstractReferenceCounted {

    private static final LocalPool<OutboundRpcMessage> POOL = new LocalPool<>(new Recycler<OutboundRpcMessage>() {
        @Override
        protected OutboundRpcMessage newObject(Handle<OutboundRpcMessage> handle) {
            return new OutboundRpcMessage(handle);
        }
    });

    /** Null for a message made by the constructor (never recycled). */
    private final Recycler.Handle<OutboundRpcMessage> handle;
    private RpcMessage header;
    private XdrPayload body;

    private OutboundRpcMessage(Recycler.Handle<OutboundRpcMessage> handle) {
        this.handle = handle;
    }

    /**
     * Takes ownership of {@code body}. A {@link RpcMessage#isPooled() pooled} header (one read from a received
     * message) is copied, so this message never shares it.
     */
    public OutboundRpcMessage(RpcMessage header, XdrPayload body) {
        ObjectUtil.checkNotNull(header, "header");
        this.body = ObjectUtil.checkNotNull(body, "body");
        this.handle = null;
        if (header instanceof RpcReply && !((RpcReply) header).isSuccess() && body.inlineLength() != 0) {
            body.release();
            throw new IllegalArgumentException("only a SUCCESS reply carries results: " + header);
        }
        this.header = header.copy();
    }

    /**
     * A version-2 call with an AUTH_NONE verifier, from the pool. Takes ownership of {@code args}.
     * {@code replyDdpItems} and {@code maxReplySize} are the local reply hints of {@link RpcCall} (0 / empty: none);
     * the array is kept, not copied: it must never change (e.g. a {@code CallOptions}' own).
     */
    public static OutboundRpcMessage newCall(int xid, int program, int version, int procedure, OpaqueAuth credential,
                                             int[] replyDdpItems, int maxReplySize, XdrPayload args) {
        return newCall(xid, program, version, procedure, credential, OpaqueAuth.NONE, replyDdpItems, maxReplySize,
                args);
    }

    /**
     * {@link #newCall(int, int, int, int, OpaqueAuth, int[], int, XdrPayload)} with a verifier (e.g. RPCSEC_GSS's
     * MIC of the header, RFC 2203 §5.3.1).
     */
    public static OutboundRpcMessage newCall(int xid, int program, int version, int procedure, OpaqueAuth credential,
                                             OpaqueAuth verifier, int[] replyDdpItems, int maxReplySize,
                                             XdrPayload args) {
        ObjectUtil.checkNotNull(credential, "credential");
        ObjectUtil.checkNotNull(verifier, "verifier");
        ObjectUtil.checkNotNull(replyDdpItems, "replyDdpItems");
        ObjectUtil.checkPositiveOrZero(maxReplySize, "maxReplySize");
        return pooled(RpcCall.pooled(xid, RpcCall.RPC_VERSION, program, version, procedure, credential,
                verifier, null, replyDdpItems, maxReplySize), ObjectUtil.checkNotNull(args, "args"));
    }

    /**
     * A MSG_ACCEPTED reply with an AUTH_NONE verifier and {@code stat}, from the pool. Takes ownership of
     * {@code results}, which only SUCCESS may carry (others: {@link XdrPayload#empty()}).
     *
     * @throws IllegalArgumentException PROG_MISMATCH (use {@link RpcReply#progMismatch}), or results with another
     *         status; {@code results} is released
     */
    public static OutboundRpcMessage newReply(int xid, AcceptStat stat, XdrPayload results) {
        return newReply(xid, OpaqueAuth.NONE, stat, results);
    }

    /**
     * {@link #newReply(int, AcceptStat, XdrPayload)} with a verifier (e.g. RPCSEC_GSS's MIC of the sequence number,
     * RFC 2203 §5.3.3.2).
     */
    public static OutboundRpcMessage newReply(int xid, OpaqueAuth verifier, AcceptStat stat, XdrPayload results) {
        ObjectUtil.checkNotNull(results, "results");
        ObjectUtil.checkNotNull(verifier, "verifier");
        if (AcceptStat.PROG_MISMATCH.equals(ObjectUtil.checkNotNull(stat, "stat"))
                || !AcceptStat.SUCCESS.equals(stat) && results.inlineLength() != 0) {
            results.release();
            throw new IllegalArgumentException("a " + stat + " reply from newReply: PROG_MISMATCH needs "
                    + "RpcReply.progMismatch, and only SUCCESS carries results");
        }
        return pooled(RpcReply.pooledAccepted(xid, verifier, stat), results);
    }

    private static OutboundRpcMessage pooled(RpcMessage header, XdrPayload body) {
        OutboundRpcMessage message = POOL.get();
        message.setRefCnt(1);
        message.header = header;
        message.body = body;
        return message;
    }

    /** The header; valid until this message is released. */
    public RpcMessage header() {
        return header;
    }

    /** The body; owned by this message. */
    public XdrPayload body() {
        return body;
    }

    @Override
    public OutboundRpcMessage retain() {
        super.retain();
        return this;
    }

    @Override
    public OutboundRpcMessage touch() {
        return this;
    }

    @Override
    public ReferenceCounted touch(Object hint) {
        return this;
    }

    @Override
    protected void deallocate() {
        body.release();
        if (handle != null) {
            RpcMessage h = header;
            header = null;
            body = null;
            h.recycle();
            POOL.recycle(this, handle);
        }
    }

    @Override
    public String toString() {
        return "OutboundRpcMessage(" + header + ", " + body + ')';
    }
}
