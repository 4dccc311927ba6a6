package dev.rpcrdma.handlers;

import dev.rpcrdma.oncrpc.metrics.RpcMetrics;
import io.netty.util.internal.ObjectUtil;

import java.util.concurrent.atomic.LongAdder;

/** Counters of one RPC-over-RDMA endpoint (shared by the connections of an initializer). Thread-safe. */
public final class RpcRdmaStats {
    private final LongAdder discardedMessages = new LongAdder();
    private final LongAdder errorsSent = new LongAdder();
    private final LongAdder errorsReceived = new LongAdder();
    private final LongAdder creditViolations = new LongAdder();
    private final LongAdder remoteInvalidations = new LongAdder();
    private final LongAdder memoryWaits = new LongAdder();
    private final LongAdder windowAllocations = new LongAdder();
    private final LongAdder localInvalidations = new LongAdder();
    private final LongAdder readChunks = new LongAdder();
    private final LongAdder writeChunksUsed = new LongAdder();
    private final LongAdder writeChunksInPlace = new LongAdder();
    private final LongAdder longCalls = new LongAdder();
    private final LongAdder longReplies = new LongAdder();
    private final LongAdder backwardViolations = new LongAdder();
    private final LongAdder backwardQueued = new LongAdder();
    private final LongAdder bindingMisses = new LongAdder();

    /**
     * Byte framing: messages whose DDP-eligible items the upper-layer binding could not locate (a layout it does not
     * know, or XDR that is not what the program says); such a reply went into the Reply chunk, or was answered
     * ERR_CHUNK when the call offered none, and such a call went inline or as a Long Call (RFC 8166 §3.5.3).
     */
    public long bindingMisses() {
        return bindingMisses.sum();
    }

    public void recordBindingMiss() {
        bindingMisses.increment();
    }

    /**
     * Connections closed because a backward-direction message broke the rules (chunks, size, rdma_xid, backward
     * credits; RFC 8167 §4.1, §4.2, §5.1 to §5.3).
     */
    public long backwardViolations() {
        return backwardViolations.sum();
    }

    /** Backward calls that waited for a backward credit before they were sent (queued, not lost). */
    public long backwardQueued() {
        return backwardQueued.sum();
    }

    public void recordBackwardViolation() {
        backwardViolations.increment();
    }

    public void recordBackwardQueued() {
        backwardQueued.increment();
    }

    /** Messages silently discarded (too short, bad reply headers, unknown xids; RFC 8166 §4.5). */
    public long discardedMessages() {
        return discardedMessages.sum();
    }

    /** RDMA_ERROR messages sent by a responder. */
    public long errorsSent() {
        return errorsSent.sum();
    }

    /** RDMA_ERROR messages received by a requester. */
    public long errorsReceived() {
        return errorsReceived.sum();
    }

    /** Calls that arrived beyond every grant (the connection was closed). */
    public long creditViolations() {
        return creditViolations.sum();
    }

    /** RPCs whose memory the responder invalidated with Send With Invalidate. */
    public long remoteInvalidations() {
        return remoteInvalidations.sum();
    }

    /**
     * Memory windows the requester invalidated itself: an {@code IBV_WR_LOCAL_INV} work request, or deallocation
     * where the device does not take one.
     */
    public long localInvalidations() {
        return localInvalidations.sum();
    }

    /** Times a call waited because the connection's registered memory pool was exhausted (back-pressure). */
    public long memoryWaits() {
        return memoryWaits.sum();
    }

    public void recordMemoryWait() {
        memoryWaits.increment();
    }

    /**
     * Memory windows the requester allocated ({@code ibv_alloc_mw}, a system call): once per window it keeps, as
     * windows invalidated by the responder or by a Local Invalidate are bound again; where local invalidation
     * deallocates, once per RPC the responder did not invalidate.
     */
    public long windowAllocations() {
        return windowAllocations.sum();
    }

    public void recordWindowAllocation() {
        windowAllocations.increment();
    }

    /**
     * Exposes these counters in {@code metrics} (its JMX MBean and {@link RpcMetrics#attached()}) as
     * {@code RpcRdma.ReadChunks}, {@code .WriteChunksUsed}, {@code .LongCalls}, {@code .LongReplies},
     * {@code .RemoteInvalidations}, {@code .LocalInvalidations}, {@code .ErrorsSent}, {@code .ErrorsReceived},
     * {@code .DiscardedMessages}, {@code .CreditViolations}, {@code .MemoryWaits}, {@code .WindowAllocations};
     * returns {@code metrics}.
     */
    public RpcMetrics attachTo(RpcMetrics metrics) {
        ObjectUtil.checkNotNull(metrics, "metrics")
                .attach("RpcRdma.ReadChunks", this::readChunks)
                .attach("RpcRdma.WriteChunksUsed", this::writeChunksUsed)
                .attach("RpcRdma.WriteChunksInPlace", this::writeChunksInPlace)
                .attach("RpcRdma.LongCalls", this::longCalls)
                .attach("RpcRdma.LongReplies", this::longReplies)
                .attach("RpcRdma.RemoteInvalidations", this::remoteInvalidations)
                .attach("RpcRdma.LocalInvalidations", this::localInvalidations)
                .attach("RpcRdma.ErrorsSent", this::errorsSent)
                .attach("RpcRdma.ErrorsReceived", this::errorsReceived)
                .attach("RpcRdma.DiscardedMessages", this::discardedMessages)
                .attach("RpcRdma.CreditViolations", this::creditViolations)
                .attach("RpcRdma.MemoryWaits", this::memoryWaits)
                .attach("RpcRdma.WindowAllocations", this::windowAllocations);
        return metrics;
    }

    /** Read chunks pulled (responder) or offered (requester). */
    public long readChunks() {
        return readChunks.sum();
    }

    /** Write chunks filled (responder) or received with data (requester). */
    public long writeChunksUsed() {
        return writeChunksUsed.sum();
    }

    /**
     * Write chunks the responder filled straight out of the reply item's own buffer, because it already lay in
     * the registered memory pool (zero copies; counted in {@link #writeChunksUsed()} too).
     */
    public long writeChunksInPlace() {
        return writeChunksInPlace.sum();
    }

    /** Long Calls (position-zero Read chunk, RDMA_NOMSG). */
    public long longCalls() {
        return longCalls.sum();
    }

    /** Long Replies (Reply chunk, RDMA_NOMSG) sent (responder) or received (requester). */
    public long longReplies() {
        return longReplies.sum();
    }


    public void recordDiscarded() {
        discardedMessages.increment();
    }

    public void recordErrorSent() {
        errorsSent.increment();
    }

    public void recordErrorReceived() {
        errorsReceived.increment();
    }

    public void recordCreditViolation() {
        creditViolations.increment();
    }

    public void recordRemoteInvalidation() {
        remoteInvalidations.increment();
    }

    public void recordLocalInvalidation() {
        localInvalidations.increment();
    }

    public void recordReadChunk() {
        readChunks.increment();
    }

    public void recordWriteChunkUsed() {
        writeChunksUsed.increment();
    }

    public void recordWriteChunkInPlace() {
        writeChunksInPlace.increment();
    }

    public void recordLongCall() {
        longCalls.increment();
    }

    public void recordLongReply() {
        longReplies.increment();
    }

    @Override
    public String toString() {
        return "RpcRdmaStats(discarded=" + discardedMessages() + ", errorsSent=" + errorsSent() + ", errorsReceived="
                + errorsReceived() + ", creditViolations=" + creditViolations() + ", remoteInv="
                + remoteInvalidations() + ", localInv=" + localInvalidations() + ", readChunks=" + readChunks()
                + ", writeChunks=" + writeChunksUsed() + ", inPlace=" + writeChunksInPlace() + ", longCalls=" + longCalls() + ", longReplies="
                + longReplies() + ", bindingMisses=" + bindingMisses() + ')';
    }
}
