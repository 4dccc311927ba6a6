package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/** An opened RDMA device ({@code struct ibv_context}). Owned by the fabric; never closed by users. */
public interface VerbsDevice {

    /** The device name, e.g. {@code rxe0} or {@code soft0}. */
    String name();

    /** Largest number of scatter/gather elements per work request. */
    int maxSge();

    /** Largest number of outstanding work requests per queue. */
    int maxQpWr();

    /** Largest number of entries of one completion queue ({@code max_cqe}). */
    int maxCqe();

    /**
     * True where posting {@link WrOpcode#LOCAL_INV} for a bound type-2 memory window must not be done, so a bound
     * window is invalidated locally by deallocating it instead: Soft-RoCE (rxe), whose kernel oopses on it
     * ({@code rxe_invalidate_mw}, Linux 6.1 and 6.12; see {@code /work/shared/rxe-vm.md}). The native fabric
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
