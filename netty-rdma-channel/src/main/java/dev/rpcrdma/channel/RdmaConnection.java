package dev.rpcrdma.channel;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

import java.io.IOException;

/**
 * What an upper-layer protocol handler (RPC-over-RDMA) needs from its RDMA connection beyond writing messages into
 * the pipeline: the peer's CM private data, the receives it may grant credits for, the largest Send, memory to expose
 * to the peer, and a writability bit of its own. {@link RdmaChannel} implements it; handlers take it in their
 * constructor (never cast {@code ctx.channel()}), so a unit test can hand them a fake. RDMA Read, RDMA Write and
 * window binds are written into the pipeline as {@link RdmaRead}, {@link RdmaWrite} and {@link RdmaBindWindow}.
 *
 * <p>Thread confinement: {@link #peerPrivateData()}, {@link #postedReceives()} and {@link #maxSendSize()} may be
 * read from any thread; the others belong on the connection's event loop.
 */
public interface RdmaConnection {
    /** The peer's CM private data (a copy): the accept reply on a client, the connect request on a server. */
    byte[] peerPrivateData();

    /** Receives posted, counted up to the receive queue depth: the credits this side can grant. */
    int postedReceives();

    /** The largest Send this connection writes. */
    int maxSendSize();

    /** Registers the readable bytes of a direct buffer with {@link RdmaAccess} rights; retains the buffer. */
    RdmaMemory registerMemory(ByteBuf buffer, int access) throws IOException;

    /**
     * The connection's registered memory pool: buffers whose memory is registered once (with no remote rights), to
     * expose through {@link RdmaBindWindow}s over {@link RdmaMemoryPool#memoryOf} without registering per use.
     */
    RdmaMemoryPool memoryPool();

    /**
     * Whether this connection's device takes {@link RdmaLocalInvalidate} for a bound type-2 window; where not, close
     * the window instead (docs/providers.md says which devices).
     */
    boolean localInvalidateSupported();

    /**
     * Whether the connection's device has type-2 memory windows ({@code ibv_query_device}: {@code max_mw > 0} and the
     * type-2 capability). Where it has none, expose memory by registering it per use
     * ({@link #registerMemory}) and deregister it before the memory is reused.
     */
    default boolean memoryWindowsSupported() {
        return true;
    }

    /**
     * Whether the sink of an RDMA Read must be registered with remote write access: iWARP devices (the Read Response
     * is a tagged message aimed at the sink, RFC 5040 §4.4). Then register each sink on its own (per Read), so the key
     * the peer learns reaches that sink only.
     */
    default boolean readSinkNeedsRemoteWrite() {
        return false;
    }

    /**
     * Whether the connection runs over iWARP (RDMAP/DDP over MPA over TCP: RFC 5040, 5041, 5044) rather than an
     * InfiniBand transport (IB, RoCE). What differs for a user: connection private data arrives exactly as long as it
     * was sent (MPA, RFC 5044 §7.1) where IB CM pads it to the message's field; a Send or RDMA Write completes at the
     * requester once the data is handed to the transport, not when the peer placed it, so a remote error (a Send
     * without a posted receive, a key out of range: RFC 5040 §7) reaches the requester as a TERMINATE message that
     * closes the connection, not as the failure of that work request; and there is no receiver-not-ready retry: a Send
     * without a posted receive is fatal to the connection (RFC 5041 §7.2, "no buffer available"), so the receiver
     * must post a receive for every message its peer may send (RPC-over-RDMA's credits, RFC 8166 §3.3.1).
     */
    default boolean iwarp() {
        return false;
    }

    /**
     * Whether the device reports a Send With Invalidate in the receive completion and invalidates only the window it
     * names ({@link dev.rpcrdma.channel.fabric.VerbsDevice#remoteInvalidationSupported()}): only then may remote
     * invalidation be offered to the peer (RFC 8797 §4.1, the R bit).
     */
    default boolean remoteInvalidationSupported() {
        return true;
    }

    /** Allocates a type-2 memory window on the connection's protection domain. */
    RdmaMemoryWindow allocateMemoryWindow() throws IOException;

    /**
     * Sets the upper layer's writability bit: while it is false the channel is not writable (as when the send queue
     * is full), e.g. while RPC-over-RDMA credits are exhausted (RFC 8166 §3.3.1). Event loop only.
     */
    void setUpperLayerWritable(boolean writable);

    /**
     * Internal to this project's RPC-over-RDMA handlers, not an API for applications (it may change or go without
     * notice): the direct send lane. Posts the Send {@code msg} ({@link ByteBuf} or {@link RdmaSend}) now, as
     * {@code ctx.writeAndFlush(msg, promise)} would, without the pipeline's write and flush machinery, and returns
     * true; then {@code msg} is released and {@code promise} completed (succeeded once posted, as a Send written
     * through the pipeline is, or failed). Returns false, having touched neither, unless the lane is provably the
     * same as the pipeline: {@code ctx} is its pipeline's first context (its write goes straight to the channel),
     * the caller is on the channel's event loop, the channel is active and can post, nothing waits in its outbound
     * buffer (flushed or not: order is kept), the send queue has room, and the message and promise are ones the
     * pipeline would take as they are. The caller then writes it into the pipeline.
     */
    default boolean sendDirect(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        return false;
    }
}
