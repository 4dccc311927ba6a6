package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.AccessFlags;
import dev.rpcrdma.channel.fabric.MemoryRegion;
import dev.rpcrdma.channel.fabric.PostException;
import dev.rpcrdma.channel.fabric.SharedReceiveQueue;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;

/**
 * One shared receive queue of an {@link EventLoopDevice} and its receive slab ({@link ReceiveBuffers}), shared by
 * the accepted connections of the loop with one receive buffer size; each completion is routed to its channel by
 * queue pair. The module README ("Shared receive queue") has the credits and ownership rules. Event-loop confined.
 */
final class SharedReceives {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(SharedReceives.class);

    /** Its index in the loop device: the channel-id field of its receives' {@code wr_id}. */
    final int index;
    final int bufferSize;
    final int depth;
    final int queueSize;
    private final int batch;
    final SharedReceiveQueue srq;
    final EventLoopDevice.Cq cq;
    final ReceiveBuffers buffers;
    private MemoryRegion region;
    private final long[] pendingWrIds;
    private final long[] pendingAddresses;
    private int pendingCount;
    /** Receives posted (owned by the device). */
    private int posted;
    /** Channels whose queue pair uses the queue. */
    int connections;

    private SharedReceives(int index, int bufferSize, int depth, int batch, SharedReceiveQueue srq, EventLoopDevice.Cq cq,
                           ReceiveBuffers buffers) {
        this.index = index;
        this.bufferSize = bufferSize;
        this.depth = depth;
        this.batch = batch;
        this.queueSize = depth + batch - 1;
        this.srq = srq;
        this.cq = cq;
        this.buffers = buffers;
        pendingWrIds = new long[batch];
        pendingAddresses = new long[batch];
    }

    /** Creates the queue, its CQ and slab, and posts every receive. */
    static SharedReceives create(EventLoopDevice loop, int index, int depth, int bufferSize, int spare,
                                 ByteBufAllocator alloc) throws IOException {
        int d = Math.max(1, Math.min(depth, loop.device.maxQpWr() - RdmaEndpoint.MAX_RECEIVE_POST_BATCH));
        int batch = Math.max(1, Math.min(RdmaEndpoint.MAX_RECEIVE_POST_BATCH, d / 8));
        long bytes = (long) (d + batch - 1 + spare) * bufferSize;
        if (bytes > RdmaEndpoint.MAX_SLAB_BYTES) {
            throw new RdmaException("the shared receive slab would be " + bytes + " bytes, more than "
                    + RdmaEndpoint.MAX_SLAB_BYTES + ": lower SHARED_RECEIVE_QUEUE_DEPTH, RECEIVE_SPARE_BUFFERS or "
                    + "RECEIVE_BUFFER_SIZE");
        }
        SharedReceiveQueue srq = loop.pd.createSharedReceiveQueue(d + batch - 1);
        SharedReceives s = null;
        try {
            EventLoopDevice.Cq cq = loop.dedicatedCq(d + batch - 1);
            s = new SharedReceives(index, bufferSize, d, batch, srq, cq,
                    new ReceiveBuffers(alloc, bufferSize, d + batch - 1, spare, loop.executor()));
            s.region = loop.pd.registerMemory(s.buffers.address(), s.buffers.capacity(), AccessFlags.LOCAL_WRITE);
            for (int slot = 0; slot < s.queueSize; slot++) {
                srq.postReceive(s.wrId(slot), s.buffers.slotAddress(slot), bufferSize, s.region.lkey());
                s.posted++;
            }
            return s;
        } catch (Throwable t) {
            if (s != null) {
                s.destroy();
            } else {
                VerbsObjects.destroy(srq, "SRQ");
            }
            throw t;
        }
    }

    private long wrId(int slot) {
        return WorkRequestIds.encode(index, WorkRequestIds.SHARED_RECEIVE, slot);
    }

    /** A receive of the queue completed (its slot is the caller's now). */
    void consumed() {
        posted--;
    }

    /** The credits one of the {@link #connections} may grant, at most {@code connectionDepth}. */
    int credits(int connectionDepth) {
        return Math.max(1, Math.min(connectionDepth, depth / Math.max(1, connections)));
    }

    /**
     * Queues {@code slot} to be posted again; posts the queue as one chain once it holds a batch. Returns how many
     * were posted. On {@link PostException}, {@code posted()} of them were.
     */
    int repost(int slot) throws IOException {
        pendingWrIds[pendingCount] = wrId(slot);
        pendingAddresses[pendingCount] = buffers.slotAddress(slot);
        if (++pendingCount < batch) {
            return 0;
        }
        int n = pendingCount;
        pendingCount = 0;
        try {
            srq.postReceives(pendingWrIds, pendingAddresses, n, bufferSize, region.lkey());
        } catch (PostException e) {
            posted += e.posted();
            throw e;
        }
        posted += n;
        return n;
    }

    /** A receive completed for a queue pair whose channel is gone: the slot goes back to the queue. */
    void orphan(int slot) {
        consumed();
        try {
            repost(slot);
        } catch (IOException e) {
            logger.warn("reposting a shared receive failed", e);
        }
    }

    /** Destroys the queue (discarding what is posted), then deregisters and closes the slab. */
    void destroy() {
        if (VerbsObjects.destroy(srq, "SRQ")) {
            VerbsObjects.destroy(region, "shared receive MR");
            region = null;
            buffers.close();
        } else {
            logger.error("the shared receive queue could not be destroyed; leaking its slab rather than freeing it "
                    + "under the device");
        }
    }

}
