package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/** An opened RDMA device ({@code struct ibv_context}). Owned by the fabric; never closed by users. */
public interface VerbsDevice {

    /** The device name, e.g. {@code rxe0} or {@code soft0}. */
    String name();

    /** Largest number of scatter/gather elements per work request. */
    int maxSge();

    /**
     * Largest number of scatter/gather elements of an RDMA Read's sink ({@code max_sge_rd}; 1 on siw, whose kernel
     * silently ignores further Read SGEs: siw_qp_tx.c). Default: {@link #maxSge()}.
     */
    default int maxSgeRd() {
        return maxSge();
    }

    /**
     * Whether the device has type-2 memory windows ({@code max_mw > 0} and {@code IBV_DEVICE_MEM_WINDOW_TYPE_2A/2B}
     * from {@code ibv_query_device}): rxe and most RoCE/IB hardware do; siw does not ({@code max_mw} 0,
     * {@code IBV_WR_BIND_MW} is {@code EINVAL}). Without them, memory is exposed through per-use memory regions.
     */
    default boolean memoryWindows() {
        return true;
    }

    /**
     * Whether the device speaks iWARP ({@code IBV_TRANSPORT_IWARP}, e.g. siw): the sink of an RDMA Read is written by
     * the peer's Read Response, a tagged message aimed at the sink's STag, so iWARP hardware requires remote write
     * access on it (RFC 5040 §4.4, RDMA Read Request carries the Data Sink STag); and the active side must send the
     * first message (RFC 6581 "enhanced MPA": a responder's message racing the MPA reply fails the connection).
     */
    default boolean iwarp() {
        return false;
    }

    /**
     * Whether a Send With Invalidate aimed at one of this device's keys is reported in the receive completion
     * ({@code IBV_WC_WITH_INV} with the invalidated rkey) and invalidates only the window it names: true with type-2
     * windows on an InfiniBand/RoCE transport. siw's user completions never report it, and there a remote
     * invalidation kills any STag of the protection domain, memory regions included (siw_qp_rx.c
     * siw_invalidate_stag): remote invalidation (RFC 8797's R bit) is not offered there.
     */
    default boolean remoteInvalidationReported() {
        return memoryWindows() && !iwarp();
    }

    /**
     * Whether work requests posted after the queue pair went to error still complete (with
     * {@code IBV_WC_WR_FLUSH_ERR}), as the verbs specification asks of InfiniBand devices (IBA 10.8.3.3: the QP in
     * error flushes what is posted). Not so on iWARP: siw flushes what is posted at the state change only; work
     * posted afterwards stays in the user-mapped queue and never completes (providers/siw rings no doorbell while
     * the previous entry is still valid; the kernel processes no queue of a QP in error), and siw's shared receive
     * queues are not flushed at all. A close there cannot wait for every flush: it waits a short while for what the
     * state change flushes, then destroys the queue pair first (after which the device owns none of the memory).
     */
    default boolean flushesWorkPostedInError() {
        return !iwarp();
    }

    /** Largest number of outstanding work requests per queue. */
    int maxQpWr();

    /** Largest number of entries of one completion queue ({@code max_cqe}). */
    int maxCqe();

    /**
     * True where posting {@link WrOpcode#LOCAL_INV} for a bound type-2 memory window must not be done, so a bound
     * window is invalidated locally by deallocating it instead: Soft-RoCE (rxe), whose kernel oopses on it
     * ({@code rxe_invalidate_mw} in Linux {@code drivers/infiniband/sw/rxe/rxe_mw.c}, 6.1 and 6.12; docs/providers.md). The native fabric
     * detects rxe by its vendor id ({@code RXE_VENDOR_ID} 0xFFFFFF, part 0, from {@code ibv_query_device}),
     * which does not depend on the name the device was given.
     */
    default boolean localInvalidateBreaksWindows() {
        return false;
    }

    /** {@code ibv_alloc_pd}. */
    ProtectionDomain allocProtectionDomain() throws IOException;

    /** {@code ibv_create_comp_channel}; its {@link CompletionChannel#fd()} becomes readable on armed completions. */
    CompletionChannel createCompletionChannel() throws IOException;

    /** {@code ibv_create_cq} with at least {@code cqe} entries, notifying {@code channel} (may be null). */
    CompletionQueue createCompletionQueue(int cqe, CompletionChannel channel) throws IOException;
}
