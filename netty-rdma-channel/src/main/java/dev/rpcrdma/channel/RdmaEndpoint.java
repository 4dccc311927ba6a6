package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.AccessFlags;
import dev.rpcrdma.channel.fabric.CmId;
import dev.rpcrdma.channel.fabric.CompletionArray;
import dev.rpcrdma.channel.fabric.CompletionChannel;
import dev.rpcrdma.channel.fabric.CompletionQueue;
import dev.rpcrdma.channel.fabric.MemoryRegion;
import dev.rpcrdma.channel.fabric.PostException;
import dev.rpcrdma.channel.fabric.ProtectionDomain;
import dev.rpcrdma.channel.fabric.QpCapabilities;
import dev.rpcrdma.channel.fabric.QueuePair;
import dev.rpcrdma.channel.fabric.VerbsDevice;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;

/**
 * The verbs objects of one connection and its registered buffer pools: protection domain, completion channel and
 * queue (shared by both work queues), RC queue pair, the receive buffers ({@link ReceiveBuffers}: a slab of
 * {@code (depth + spare) × receiveBufferSize}, posted as single-SGE receives) and a send slab
 * ({@code sendQueueDepth × maxSendSize} slots for non-inline Sends). Slabs are direct buffers from the channel's
 * allocator, registered once: the hot path never registers memory.
 * {@link #destroy()} tears down in the verbs order and must only run after every posted work request completed.
 */
final class RdmaEndpoint {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaEndpoint.class);
    /** Like the Linux RPC-over-RDMA transports (xprtrdma and svcrdma repost in chains of RPCRDMA_MAX_RECV_BATCH, 7). */
    static final int MAX_RECEIVE_POST_BATCH = 8;
    /** Largest registered slab: one direct buffer (1 GiB, under the int capacity limit of a ByteBuf). */
    static final int MAX_SLAB_BYTES = 1 << 30;

    ProtectionDomain pd;
    /** Registered chunk memory on {@link #pd} (created by the channel once the endpoint exists). */
    RdmaMemoryPool pool;
    CompletionChannel compChannel;
    CompletionQueue cq;
    CompletionArray completions;
    QueuePair qp;
    ReceiveBuffers receives;
    MemoryRegion receiveRegion;
    ByteBuf sendSlab;
    MemoryRegion sendRegion;
    int receiveBufferSize;
    /** Receives posted at least (while reading keeps up): {@code RECEIVE_QUEUE_DEPTH}, capped by the device. */
    int receiveDepth;
    /** Receives reposted per {@code ibv_post_recv}: an eighth of the depth, 1 to {@link #MAX_RECEIVE_POST_BATCH}. */
    int receivePostBatch;
    /** The receive queue: {@code receiveDepth + receivePostBatch - 1} entries, all posted at first. */
    int receiveQueueSize;
    private long[] pendingWrIds;
    private long[] pendingAddresses;
    private int pendingCount;
    int sendSlotSize;
    int sendDepth;
    int maxInline;
    private int[] freeSendSlots;
    private int freeSendSlotCount;
    int unackedEvents;

    static RdmaEndpoint create(CmId id, RdmaChannelConfig config, ByteBufAllocator alloc, int batch)
            throws IOException {
        if (!PlatformDependent.hasUnsafe()) {
            throw new RdmaException("the RDMA transport needs direct buffers with memory addresses (sun.misc.Unsafe)");
        }
        VerbsDevice device = id.device();
        RdmaEndpoint ep = new RdmaEndpoint();
        try {
            ep.receiveDepth = Math.min(config.receiveQueueDepth(), device.maxQpWr());
            ep.receivePostBatch = Math.max(1, Math.min(MAX_RECEIVE_POST_BATCH, ep.receiveDepth / 8));
            ep.receiveDepth = Math.min(ep.receiveDepth, device.maxQpWr() - ep.receivePostBatch + 1);
            ep.receiveQueueSize = ep.receiveDepth + ep.receivePostBatch - 1;
            ep.pendingWrIds = new long[ep.receivePostBatch];
            ep.pendingAddresses = new long[ep.receivePostBatch];
            // One send queue entry more than sendDepth: the drain marker of close (RdmaChannel.drain).
            ep.sendDepth = Math.min(config.sendQueueDepth(), device.maxQpWr() - 1);
            ep.receiveBufferSize = config.receiveBufferSize();
            ep.sendSlotSize = config.maxSendSize();
            ep.maxInline = Math.min(config.maxInlineData(), device.maxInlineData());
            slabBytes(ep.receiveQueueSize + config.receiveSpareBuffers(), ep.receiveBufferSize,
                    "receive", "RECEIVE_QUEUE_DEPTH, RECEIVE_SPARE_BUFFERS or RECEIVE_BUFFER_SIZE");
            int sendSlab = slabBytes(ep.sendDepth, ep.sendSlotSize, "send", "SEND_QUEUE_DEPTH or MAX_SEND_SIZE");
            ep.pd = device.allocProtectionDomain();
            ep.compChannel = device.createCompletionChannel();
            ep.cq = device.createCompletionQueue(ep.sendDepth + 1 + ep.receiveQueueSize, ep.compChannel);
            ep.completions = ep.cq.newCompletionArray(batch);
            int sge = Math.min(device.maxSge(), 16);
            ep.qp = id.createQueuePair(ep.pd, ep.cq, ep.cq,
                    new QpCapabilities(ep.sendDepth + 1, ep.receiveQueueSize, sge, 1, ep.maxInline));
            ep.receives = new ReceiveBuffers(alloc, ep.receiveBufferSize, ep.receiveQueueSize,
                    config.receiveSpareBuffers());
            ep.receiveRegion = ep.pd.registerMemory(ep.receives.address(), ep.receives.capacity(),
                    AccessFlags.LOCAL_WRITE);
            ep.sendSlab = alloc.directBuffer(sendSlab);
            ep.sendRegion = ep.pd.registerMemory(ep.sendSlab.memoryAddress(), ep.sendSlab.capacity(), 0);
            ep.freeSendSlots = new int[ep.sendDepth];
            for (int i = 0; i < ep.sendDepth; i++) {
                ep.freeSendSlots[i] = ep.sendDepth - 1 - i;
            }
            ep.freeSendSlotCount = ep.sendDepth;
            return ep;
        } catch (Throwable t) {
            ep.destroy();
            throw t;
        }
    }

    /**
     * The bytes of a slab of {@code slots} buffers of {@code size} bytes; a clear error (before anything is allocated)
     * when that exceeds what one buffer can hold, rather than an overflowed size.
     */
    private static int slabBytes(int slots, int size, String what, String options) throws RdmaException {
        long bytes = (long) slots * size;
        if (bytes > MAX_SLAB_BYTES) {
            throw new RdmaException("the " + what + " slab would be " + slots + " x " + size + " = " + bytes
                    + " bytes, more than " + MAX_SLAB_BYTES + ": lower " + options);
        }
        return (int) bytes;
    }

    void postReceive(int channelId, int slot) throws IOException {
        qp.postReceive(WorkRequestIds.encode(channelId, WorkRequestIds.RECEIVE, slot), receives.slotAddress(slot),
                receiveBufferSize, receiveRegion.lkey());
    }

    /**
     * Queues slot {@code slot} to be posted again and posts the queue as one chain once it holds
     * {@link #receivePostBatch} slots (one {@code ibv_post_recv}); returns how many receives that posted (0 or the
     * batch). The receive queue starts with {@code receivePostBatch - 1} entries more than the depth, so at least
     * the depth stays posted in between. On {@link PostException}, {@code posted()} of them were posted.
     */
    int repost(int channelId, int slot) throws IOException {
        pendingWrIds[pendingCount] = WorkRequestIds.encode(channelId, WorkRequestIds.RECEIVE, slot);
        pendingAddresses[pendingCount] = receives.slotAddress(slot);
        if (++pendingCount < receivePostBatch) {
            return 0;
        }
        int n = pendingCount;
        pendingCount = 0;
        qp.postReceives(pendingWrIds, pendingAddresses, n, receiveBufferSize, receiveRegion.lkey());
        return n;
    }

    /** A free send slot or -1. */
    int allocateSendSlot() {
        return freeSendSlotCount == 0 ? -1 : freeSendSlots[--freeSendSlotCount];
    }

    void freeSendSlot(int slot) {
        freeSendSlots[freeSendSlotCount++] = slot;
    }

    long sendSlotAddress(int slot) {
        return sendSlab.memoryAddress() + (long) slot * sendSlotSize;
    }

    void ackEvents() {
        if (unackedEvents > 0 && cq != null) {
            cq.ackEvents(unackedEvents);
            unackedEvents = 0;
        }
    }

    /** Destroys everything in verbs order; for a partly created endpoint. */
    void destroy() {
        destroyQueues();
        destroyMemory();
    }

    /**
     * Destroys the QP, then the CQ (after acking all its events: {@code ibv_destroy_cq} waits for that), then the
     * completion channel; returns whether the QP was destroyed (after which the device owns no posted memory).
     */
    boolean destroyQueues() {
        boolean qpGone = close(qp, "QP");
        qp = null;
        ackEvents();
        close(cq, "CQ");
        cq = null;
        close(compChannel, "completion channel");
        compChannel = null;
        return qpGone;
    }

    /**
     * Deregisters the slabs and releases them (the receive slab once every lent receive buffer is back too), then
     * deallocates the PD; after {@link #destroyQueues()}.
     */
    void destroyMemory() {
        if (pool != null) {
            pool.close();
            pool = null;
        }
        close(receiveRegion, "receive MR");
        close(sendRegion, "send MR");
        receiveRegion = null;
        sendRegion = null;
        if (receives != null) {
            receives.close();
            receives = null;
        }
        if (sendSlab != null) {
            sendSlab.release();
            sendSlab = null;
        }
        close(pd, "PD");
        pd = null;
    }

    /** Destroys {@code c}; false if that failed (true when there was nothing to destroy). */
    private static boolean close(AutoCloseable c, String what) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception e) {
                logger.warn("failed to destroy the {}", what, e);
                return false;
            }
        }
        return true;
    }
}
