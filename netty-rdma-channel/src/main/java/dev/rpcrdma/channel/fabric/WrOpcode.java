package dev.rpcrdma.channel.fabric;

/** {@code enum ibv_wr_opcode} values. */
public final class WrOpcode {
    public static final int RDMA_WRITE = 0;
    public static final int RDMA_WRITE_WITH_IMM = 1;
    public static final int SEND = 2;
    public static final int SEND_WITH_IMM = 3;
    public static final int RDMA_READ = 4;
    public static final int ATOMIC_CMP_AND_SWP = 5;
    public static final int ATOMIC_FETCH_AND_ADD = 6;
    /**
     * Local invalidate. DANGER on Soft-RoCE: posting it for a bound type-2 memory window oopses the kernel
     * (NULL dereference in {@code rxe_invalidate_mw}, Linux 6.1 and 6.12); deallocate the window instead.
     */
    public static final int LOCAL_INV = 7;
    public static final int BIND_MW = 8;
    public static final int SEND_WITH_INV = 9;

    private WrOpcode() {
    }
}
