package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/** An opened RDMA device ({@code struct ibv_context}). Owned by the fabric; never closed by users. */
public interface VerbsDevice {

    /** The device name, e.g. {@code rxe0} or {@code soft0}. */
    String name();

    /** Largest inline data a send work request may carry ({@code max_inline_data} granted at QP creation). */
    int maxInlineData();

    /** Largest number of scatter/gather elements per work request. */
    int maxSge();

    /** Largest number of outstanding work requests per queue. */
    int maxQpWr();

    /** Largest number of entries of one completion queue ({@code max_cqe}). */
    int maxCqe();

    /** {@code ibv_alloc_pd}. */
    ProtectionDomain allocProtectionDomain() throws IOException;

    /** {@code ibv_create_comp_channel}; its {@link CompletionChannel#fd()} becomes readable on armed completions. */
    CompletionChannel createCompletionChannel() throws IOException;

    /** {@code ibv_create_cq} with at least {@code cqe} entries, notifying {@code channel} (may be null). */
    CompletionQueue createCompletionQueue(int cqe, CompletionChannel channel) throws IOException;
}
