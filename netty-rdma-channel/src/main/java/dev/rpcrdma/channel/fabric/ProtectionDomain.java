package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/** A protection domain ({@code ibv_pd}): memory keys are valid only for queue pairs of the same domain. */
public interface ProtectionDomain extends AutoCloseable {

    /**
     * {@code ibv_reg_mr}: registers {@code length} bytes at native {@code address} with {@link AccessFlags}.
     * The memory must stay allocated (pinned direct memory, never GC-managed) until the region is closed.
     */
    MemoryRegion registerMemory(long address, long length, int access) throws IOException;

    /** {@code ibv_alloc_mw(pd, IBV_MW_TYPE_2)}: an unbound type-2 memory window. */
    MemoryWindow allocMemoryWindow() throws IOException;

    /**
     * {@code ibv_create_srq}: a shared receive queue of at least {@code maxWr} single-SGE receives (the device may
     * grant more: {@link SharedReceiveQueue#capacity()}).
     */
    SharedReceiveQueue createSharedReceiveQueue(int maxWr) throws IOException;

    /** {@code ibv_dealloc_pd}; fails with EBUSY while regions, windows or queue pairs use it. */
    @Override
    void close() throws IOException;
}
