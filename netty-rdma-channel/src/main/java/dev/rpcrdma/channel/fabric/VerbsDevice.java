package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/** An opened RDMA device ({@code struct ibv_context}). Owned by the fabric; never closed by users. */
public interface VerbsDevice {

    /** The device name, e.g. {@code mlx5_0}. */
    String name();

    /** Largest number of scatter/gather elements per work request. */
    int maxSge();

    /**
     * Largest number of scatter/gather elements of an RDMA Read's sink ({@code max_sge_rd}); a device may ignore
     * further Read SGEs silently. Default: {@link #maxSge()}.
     */
    default int maxSgeRd() {
        return maxSge();
    }

    /**
     * Whether the device has type-2 memory windows ({@code max_mw > 0} and {@code IBV_DEVICE_MEM_WINDOW_TYPE_2A/2B}
     * from {@code ibv_query_device}). Without them, memory is exposed through per-use memory regions.
     */
    default boolean memoryWindowsSupported() {
        return true;
    }

    /**
     * Whether the device speaks iWARP ({@code IBV_TRANSPORT_IWARP}): the sink of an RDMA Read needs remote write
     * access (RFC 5040 §4.4) and the active side must send the first message (RFC 6581).
     */
    default boolean iwarp() {
        return false;
    }

    /**
     * Whether a Send With Invalidate is reported in the receive completion ({@code IBV_WC_WITH_INV} with the
     * invalidated rkey) and invalidates only the window it names: only then may RFC 8797's R bit be offered.
     */
    default boolean remoteInvalidationSupported() {
        return memoryWindowsSupported() && !iwarp();
    }

    /**
     * Whether work requests posted after the queue pair went to error still complete flushed (IBA 10.8.3.3), so a
     * close can wait for every flush; iWARP devices flush only at the state change.
     */
    default boolean flushesWorkPostedInError() {
        return !iwarp();
    }

    /** Largest number of outstanding work requests per queue. */
    int maxQpWr();

    /** Largest number of entries of one completion queue ({@code max_cqe}). */
    int maxCqe();

    /**
     * Whether {@link WrOpcode#LOCAL_INV} may be posted for a bound type-2 memory window; where not, a bound window is
     * invalidated locally by deallocating it (docs/providers.md says which devices).
     */
    default boolean localInvalidateSupported() {
        return true;
    }

    /** {@code ibv_alloc_pd}. */
    ProtectionDomain allocProtectionDomain() throws IOException;

    /** {@code ibv_create_comp_channel}; its {@link CompletionChannel#fd()} becomes readable on armed completions. */
    CompletionChannel createCompletionChannel() throws IOException;

    /** {@code ibv_create_cq} with at least {@code cqe} entries, notifying {@code channel} (may be null). */
    CompletionQueue createCompletionQueue(int cqe, CompletionChannel channel) throws IOException;
}
