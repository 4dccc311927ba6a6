package dev.rpcrdma.channel;

import io.netty.channel.ChannelOption;

/**
 * Options of {@link RdmaChannel} (connection parameters, queue sizes, private data) and {@link RdmaServerChannel}.
 * Set them with {@code Bootstrap.option} / {@code ServerBootstrap.childOption}; queue and buffer sizes apply when
 * the queue pair is created: on a client when the route is resolved (during connect), on an accepted channel when
 * it accepts — so a server may size each connection after reading {@link RdmaChannel#peerPrivateData()}, in a
 * {@code ChannelInitializer}'s {@code initChannel} or in {@code channelRegistered} (with {@link #AUTO_ACCEPT}), or
 * before {@link RdmaChannel#accept(byte[])}.
 */
public final class RdmaChannelOption {

    /**
     * Private data to send: with the connect request on a client (at most 56 bytes) or with the accept reply on an
     * accepted channel (at most 196 bytes). The server may set it in {@code channelRegistered}, after reading
     * {@link RdmaChannel#peerPrivateData()}, when {@link #AUTO_ACCEPT} is on; or pass it to
     * {@link RdmaChannel#accept(byte[])}.
     */
    public static final ChannelOption<byte[]> PRIVATE_DATA = ChannelOption.valueOf("RDMA_PRIVATE_DATA");
    /**
     * Accepted channels accept the connection right after {@code channelRegistered} (default true): options set up
     * to then (initializers, {@code channelRegistered}) size the connection.
     */
    public static final ChannelOption<Boolean> AUTO_ACCEPT = ChannelOption.valueOf("RDMA_AUTO_ACCEPT");
    /** Send work requests outstanding at most (send queue depth; default 128). */
    public static final ChannelOption<Integer> SEND_QUEUE_DEPTH = ChannelOption.valueOf("RDMA_SEND_QUEUE_DEPTH");
    /**
     * Receives kept posted at least while reading keeps up (default 64). They are reposted in batches of an eighth
     * of this (at most 8, one {@code ibv_post_recv} each), so up to that many less one more are posted at times.
     */
    public static final ChannelOption<Integer> RECEIVE_QUEUE_DEPTH = ChannelOption.valueOf("RDMA_RECEIVE_QUEUE_DEPTH");
    /** Size of each posted receive buffer: the largest Send this side can receive (default 4096). */
    public static final ChannelOption<Integer> RECEIVE_BUFFER_SIZE = ChannelOption.valueOf("RDMA_RECEIVE_BUFFER_SIZE");
    /**
     * Receive buffers beyond the receive queue depth, for zero-copy delivery (default 16): while one is free, a
     * received Send is fired in the very buffer it landed in and a free one is posted in its place; releasing the
     * {@link RdmaReceive} gives the buffer back. When the pipeline holds this many receives, further ones are copied
     * into buffers from the channel's allocator (their buffer is reposted at once). 0: always copy.
     */
    public static final ChannelOption<Integer> RECEIVE_SPARE_BUFFERS =
            ChannelOption.valueOf("RDMA_RECEIVE_SPARE_BUFFERS");
    /**
     * Server option ({@code ServerBootstrap.option}): the accepted connections of one event loop (per device and
     * receive buffer size) share one shared receive queue of this many receives and one registered receive slab,
     * instead of a receive queue and slab each (default 0: off). Their {@link #RECEIVE_QUEUE_DEPTH} then only caps
     * the credits each may grant ({@link RdmaChannel#postedReceives()}: its fair share of the queue, at least 1);
     * a Send beyond what the queue holds meets RNR and is retried by the peer. See the module README.
     */
    public static final ChannelOption<Integer> SHARED_RECEIVE_QUEUE_DEPTH =
            ChannelOption.valueOf("RDMA_SHARED_RECEIVE_QUEUE_DEPTH");
    /** Largest Send this side writes (size of each registered send slot; default 4096). */
    public static final ChannelOption<Integer> MAX_SEND_SIZE = ChannelOption.valueOf("RDMA_MAX_SEND_SIZE");
    /**
     * Sends up to this size are posted inline, copied into the work request rather than read by the device from
     * registered memory (default 128, at most 1024: an RPC-over-RDMA NULL call, 68 bytes with AUTH_NONE, and small
     * calls and replies go inline). The queue pair asks the device for it; verbs cannot query a device's limit, so
     * when the device refuses, half is asked for, down to 64 bytes and then none.
     * {@link RdmaChannel#maxInlineData()} tells what a connection got.
     */
    public static final ChannelOption<Integer> MAX_INLINE_DATA = ChannelOption.valueOf("RDMA_MAX_INLINE_DATA");
    /** {@code rnr_retry_count} granted to the peer's sends (0..7, 7 = forever; default 7). */
    public static final ChannelOption<Integer> RNR_RETRY_COUNT = ChannelOption.valueOf("RDMA_RNR_RETRY_COUNT");
    /**
     * {@code retry_count} of the transport: how many times a request without an acknowledgement is sent again before
     * its work request fails with {@code IBV_WC_RETRY_EXC_ERR} and the connection errs (0..7; default 6, as Linux's
     * xprtrdma: a peer that is gone is noticed and the RPC layer reconnects). Some devices treat 7 as "forever", as
     * the verbs define only for {@code rnr_retry_count} (Linux {@code drivers/infiniband/sw/rxe/rxe_comp.c}).
     */
    public static final ChannelOption<Integer> RETRY_COUNT = ChannelOption.valueOf("RDMA_RETRY_COUNT");
    /** {@code responder_resources}: incoming RDMA Reads in flight (default 16). */
    public static final ChannelOption<Integer> RESPONDER_RESOURCES = ChannelOption.valueOf("RDMA_RESPONDER_RESOURCES");
    /** {@code initiator_depth}: outgoing RDMA Reads in flight (default 16). */
    public static final ChannelOption<Integer> INITIATOR_DEPTH = ChannelOption.valueOf("RDMA_INITIATOR_DEPTH");
    /**
     * Bytes per slab of the connection's registered memory pool ({@link RdmaConnection#memoryPool()}; rounded up to
     * a power of two, default 4 MiB): what one registration adds.
     */
    public static final ChannelOption<Integer> MEMORY_POOL_SLAB_SIZE =
            ChannelOption.valueOf("RDMA_MEMORY_POOL_SLAB_SIZE");
    /**
     * Most bytes the connection's memory pool registers (default 64 MiB); beyond it allocations wait
     * ({@link RdmaMemoryPool#tryAllocate}, {@link RdmaMemoryPool#whenAvailable}).
     */
    public static final ChannelOption<Long> MEMORY_POOL_MAX_BYTES = ChannelOption.valueOf("RDMA_MEMORY_POOL_MAX_BYTES");

    private RdmaChannelOption() {
    }
}
