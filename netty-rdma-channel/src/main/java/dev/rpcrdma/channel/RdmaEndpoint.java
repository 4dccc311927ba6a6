package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.CmId;
import dev.rpcrdma.channel.fabric.CompletionQueue;
import dev.rpcrdma.channel.fabric.MemoryRegion;
import dev.rpcrdma.channel.fabric.PostException;
import dev.rpcrdma.channel.fabric.ProtectionDomain;
import dev.rpcrdma.channel.fabric.QpCapabilities;
import dev.rpcrdma.channel.fabric.QueuePair;
import dev.rpcrdma.channel.fabric.SharedReceiveQueue;
import dev.rpcrdma.channel.fabric.VerbsDevice;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;

/**
 * The verbs objects of one connection and its registered buffer pools: the RC queue pair, created on its loop's
 * protection domain and one of its loop's completion queues ({@link EventLoopDevice}: shared by the loop's connections on
 * the device, both work queues completing into it), the receive buffers ({@link ReceiveBuffers}: a slab of
 * {@code (depth + spare) × receiveBufferSize}, posted as single-SGE receives) and a send slab
 * ({@code sendQueueDepth × maxSendSize} slots for non-inline Sends). Slabs are direct buffers from the channel's
 * allocator, registered once: the hot path never registers memory.
 * {@link #destroy()} tears down in the verbs order and must only run after every posted work request completed.
 */
final class RdmaEndpoint {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaEndpoint.class);
    /** Like the Linux RPC-over-RDMA transports (xprtrdma and svcrdma repost in chains of RPCRDMA_MAX_RECV_BATCH, 7). */
    static final int MAX_RECEIVE_POST_BATCH = 8;
    /** The smallest inline size asked for before none, when a device refuses more ({@link #createQueuePair}). */
    static final int MIN_INLINE_ASKED = 64;
    /** Largest registered slab: one direct buffer (1 GiB, under the int capacity limit of a ByteBuf). */
    static final int MAX_SLAB_BYTES = 1 << 30;

    /** The loop's shared objects on this device; a reference is held from {@link #create} to {@link #destroyMemory}. */
    EventLoopDevice loop;
    /** The loop's protection domain (shared by the loop's connections on the device; not destroyed here). */
    ProtectionDomain pd;
    /** Registered chunk memory on {@link #pd} (created by the channel once the endpoint exists). */
    RdmaMemoryPool pool;
    /** The loop's completion queue this queue pair completes into, and the entries reserved in it. */
    EventLoopDevice.Cq cq;
    int cqEntries;
    private int channelId;
    QueuePair qp;
    private int qpNum;
    /**
     * The loop's shared receive queue this queue pair receives through
     * ({@link RdmaChannelOption#SHARED_RECEIVE_QUEUE_DEPTH}), or null: then {@link #receives} are its own.
     */
    SharedReceives shared;
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
    /** Sends up to this size are posted inline: {@code MAX_INLINE_DATA}, as far as the device granted it. */
    int maxInline;
    /** SGEs per send work request the queue pair was granted: an inline Send gathers at most that many. */
    int maxSendSge = 1;
    /**
     * Signal every send work request where the device does not flush work posted in error
     * ({@link dev.rpcrdma.channel.fabric.VerbsDevice#flushesWorkPostedInError()}):
     * the drain marker that close posts behind an unsignalled last Send would never come back; with every request
     * signalled no marker is needed and the flush at the state change retires everything.
     */
    boolean signalEverySend;
    /**
     * iWARP: a work request posted behind an RDMA Read still outstanding is fenced ({@code IBV_SEND_FENCE}). An iWARP
     * device may complete a Send or Write as soon as it is transmitted, before an earlier Read's response arrived, and
     * {@link SendQueue#retire} takes a completion to retire every earlier work request (in-order completion, as IB
     * guarantees): without the fence a Read was retired, its data handed up, before it had landed.
     */
    boolean fenceBehindReads;
    private int[] freeSendSlots;
    private int freeSendSlotCount;

    /**
     * Creates the queue pair, asking for {@link #maxInline} bytes of inline data ({@code MAX_INLINE_DATA}). Verbs
     * has no query for a device's inline limit, and a provider refuses a queue pair whose {@code max_inline_data} is
     * beyond it ({@code EINVAL}; docs/providers.md lists some limits): then half of it is asked for, down to {@value #MIN_INLINE_ASKED} bytes and finally none, and the
     * first refusal is thrown if even that fails (the cause was something else). {@link #maxInline} becomes what the
     * device granted, capped by what was asked for.
     */
    private QueuePair createQueuePair(CmId id, CompletionQueue recvCq, SharedReceiveQueue srq, int recvWr, int sge)
            throws IOException {
        int asked = maxInline;
        IOException refused = null;
        while (true) {
            QpCapabilities c = new QpCapabilities(sendDepth + 1, recvWr, sge, 1, asked);
            try {
                QueuePair q = srq != null ? id.createQueuePair(pd, cq.queue, recvCq, srq, c)
                        : id.createQueuePair(pd, cq.queue, recvCq, c);
                if (refused != null) {
                    logger.debug("{} refused {} bytes of inline data; queue pairs ask for {}", id.device().name(),
                            maxInline, asked);
                }
                maxInline = Math.min(asked, q.capabilities().maxInlineData);
                maxSendSge = Math.max(1, Math.min(sge, q.capabilities().maxSendSge));
                return q;
            } catch (IOException e) {
                if (refused == null) {
                    refused = e;
                }
                if (asked == 0) {
                    throw refused;
                }
                asked = asked > MIN_INLINE_ASKED ? Math.max(MIN_INLINE_ASKED, asked / 2) : 0;
            }
        }
    }

    static RdmaEndpoint create(CmId id, RdmaChannelConfig config, ByteBufAllocator alloc, RdmaIoHandler handler,
                               RdmaChannel channel, int channelId, int sharedDepth) throws IOException {
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
            ep.maxInline = config.maxInlineData();
            ep.signalEverySend = device.iwarp();
            ep.fenceBehindReads = device.iwarp();
            if (sharedDepth == 0) {
                slabBytes(ep.receiveQueueSize + config.receiveSpareBuffers(), ep.receiveBufferSize,
                        "receive", "RECEIVE_QUEUE_DEPTH, RECEIVE_SPARE_BUFFERS or RECEIVE_BUFFER_SIZE");
            }
            int sendSlab = slabBytes(ep.sendDepth, ep.sendSlotSize, "send", "SEND_QUEUE_DEPTH or MAX_SEND_SIZE");
            EventLoopDevice loop = handler.loopDevice(device);
            // Receives through a shared queue complete on its own CQ: only the send queue reserves here.
            int entries = ep.sendDepth + 1 + (sharedDepth == 0 ? ep.receiveQueueSize : 0);
            ep.cq = loop.attach(channel, channelId, entries);
            ep.loop = loop;
            ep.cqEntries = entries;
            ep.channelId = channelId;
            ep.pd = loop.pd;
            int sge = Math.min(device.maxSge(), 16);
            if (sharedDepth > 0) {
                SharedReceives shared = loop.sharedReceives(sharedDepth, ep.receiveBufferSize,
                        config.receiveSpareBuffers(), alloc);
                ep.qp = ep.createQueuePair(id, shared.cq.queue, shared.srq, 0, sge);
                ep.shared = shared;
                ep.qpNum = ep.qp.qpNum();
                shared.connections++;
                loop.receivesThroughSrq(ep.qpNum, channel);
            } else {
                ep.qp = ep.createQueuePair(id, ep.cq.queue, null, ep.receiveQueueSize, sge);
                ep.qpNum = ep.qp.qpNum();
                ep.receives = new ReceiveBuffers(alloc, ep.receiveBufferSize, ep.receiveQueueSize,
                        config.receiveSpareBuffers(), handler.receiveHolders.loop());
                ep.receiveRegion = ep.pd.registerMemory(ep.receives.address(), ep.receives.capacity(),
                        RdmaAccess.LOCAL_WRITE);
            }
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

    /**
     * The queue pair's destroy was handed to a {@link QueuePairTeardown} thread ({@link #QP_DESTROYING}), or that
     * failed ({@link #QP_STUCK}); {@link #destroyQueues} then destroys nothing.
     */
    static final int QP_HERE = 0;
    static final int QP_DESTROYING = 1;
    static final int QP_STUCK = 2;
    int qpTeardown = QP_HERE;

    /** The destroy handed off returned: gone (the device owns no posted memory now) or failed. Loop thread. */
    void queuePairDestroyed(boolean destroyed) {
        if (destroyed) {
            qp = null;
            qpTeardown = QP_HERE;
        } else {
            qpTeardown = QP_STUCK;
        }
    }

    /** Destroys everything in verbs order; for a partly created endpoint (nothing was posted). */
    void destroy() {
        destroyQueues(true);
        destroyMemory();
    }

    /**
     * Destroys the QP and detaches it from the loop's completion queue (its reservation goes back if every work
     * request came back, {@code drained}); returns whether the QP was destroyed (after which the device owns no
     * posted memory). If it could not be, the channel stays attached: the loop's CQ and PD stay with the QP.
     */
    boolean destroyQueues(boolean drained) {
        if (qpTeardown != QP_HERE) {
            return false; // its destroy is under way on a teardown thread, or failed there: keep what it may use
        }
        boolean qpGone = VerbsObjects.destroy(qp, "QP");
        if (qpGone) {
            qp = null;
        }
        if (qpGone && loop != null) {
            loop.detach(channelId, qpNum, cq, cqEntries, drained);
            cq = null;
            if (shared != null) {
                shared.connections--;
            }
        }
        return qpGone;
    }

    /**
     * Deregisters the slabs and releases them (the receive slab once every lent receive buffer is back too), then
     * drops the reference on the loop's objects (the last one destroys CQs and PD); after {@link #destroyQueues}.
     */
    void destroyMemory() {
        if (pool != null) {
            pool.close();
            pool = null;
        }
        VerbsObjects.destroy(receiveRegion, "receive MR");
        VerbsObjects.destroy(sendRegion, "send MR");
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
        pd = null;
        if (loop != null && qp == null) { // a queue pair that could not be destroyed keeps the loop's CQ and PD
            EventLoopDevice l = loop;
            loop = null;
            l.release();
        }
    }

}
