package dev.rpcrdma.channel.verbs;

/**
 * libibverbs enum values, named exactly as in {@code infiniband/verbs.h} (checked by {@code StructLayoutsTest}).
 */
public final class IbvConstants {
    private IbvConstants() {
    }

    // enum ibv_transport_type
    public static final int IBV_TRANSPORT_IB = 0;
    public static final int IBV_TRANSPORT_IWARP = 1;

    // enum ibv_access_flags

    // enum ibv_wr_opcode
    public static final int IBV_WR_RDMA_WRITE = 0;
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    public static final int IBV_WR_SEND = 2;
    public static final int IBV_WR_SEND_WITH_IMM = 3;
    public static final int IBV_WR_RDMA_READ = 4;
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;
    /**
     * Local invalidate. DANGER on Soft-RoCE: posting it for a bound type-2 memory window oopses the kernel
     * (NULL dereference in {@code rxe_invalidate_mw}, Linux 6.1 and 6.12); deallocate the window instead.
     */
    public static final int IBV_WR_LOCAL_INV = 7;
    public static final int IBV_WR_BIND_MW = 8;
    public static final int IBV_WR_SEND_WITH_INV = 9;

    // enum ibv_send_flags
    public static final int IBV_SEND_FENCE = 1;
    public static final int IBV_SEND_SIGNALED = 1 << 1;
    public static final int IBV_SEND_SOLICITED = 1 << 2;
    public static final int IBV_SEND_INLINE = 1 << 3;

    // enum ibv_wc_status
    public static final int IBV_WC_SUCCESS = 0;
    public static final int IBV_WC_LOC_LEN_ERR = 1;
    public static final int IBV_WC_LOC_QP_OP_ERR = 2;
    public static final int IBV_WC_LOC_PROT_ERR = 4;
    public static final int IBV_WC_WR_FLUSH_ERR = 5;
    public static final int IBV_WC_MW_BIND_ERR = 6;
    public static final int IBV_WC_BAD_RESP_ERR = 7;
    public static final int IBV_WC_LOC_ACCESS_ERR = 8;
    public static final int IBV_WC_REM_INV_REQ_ERR = 9;
    public static final int IBV_WC_REM_ACCESS_ERR = 10;
    public static final int IBV_WC_REM_OP_ERR = 11;
    public static final int IBV_WC_RETRY_EXC_ERR = 12;
    public static final int IBV_WC_RNR_RETRY_EXC_ERR = 13;
    public static final int IBV_WC_REM_ABORT_ERR = 16;
    public static final int IBV_WC_FATAL_ERR = 19;
    public static final int IBV_WC_RESP_TIMEOUT_ERR = 20;
    public static final int IBV_WC_GENERAL_ERR = 21;

    // enum ibv_wc_opcode
    public static final int IBV_WC_SEND = 0;
    public static final int IBV_WC_RDMA_WRITE = 1;
    public static final int IBV_WC_RDMA_READ = 2;
    public static final int IBV_WC_COMP_SWAP = 3;
    public static final int IBV_WC_FETCH_ADD = 4;
    public static final int IBV_WC_BIND_MW = 5;
    public static final int IBV_WC_LOCAL_INV = 6;
    /** Receive completions have this bit set: test {@code (opcode & IBV_WC_RECV) != 0}. */
    public static final int IBV_WC_RECV = 1 << 7;
    public static final int IBV_WC_RECV_RDMA_WITH_IMM = (1 << 7) + 1;

    // enum ibv_wc_flags
    public static final int IBV_WC_GRH = 1;
    public static final int IBV_WC_WITH_IMM = 1 << 1;
    public static final int IBV_WC_WITH_INV = 1 << 3;

    // enum ibv_qp_type
    public static final int IBV_QPT_RC = 2;
    public static final int IBV_QPT_UC = 3;
    public static final int IBV_QPT_UD = 4;

    // enum ibv_qp_state
    public static final int IBV_QPS_RESET = 0;
    public static final int IBV_QPS_INIT = 1;
    public static final int IBV_QPS_RTR = 2;
    public static final int IBV_QPS_RTS = 3;
    public static final int IBV_QPS_SQD = 4;
    public static final int IBV_QPS_SQE = 5;
    public static final int IBV_QPS_ERR = 6;

    // enum ibv_qp_attr_mask
    public static final int IBV_QP_STATE = 1;

    // enum ibv_mw_type
    public static final int IBV_MW_TYPE_1 = 1;
    public static final int IBV_MW_TYPE_2 = 2;

    // enum ibv_device_cap_flags (the ones the transport may check)
    public static final int IBV_DEVICE_MEM_WINDOW = 1 << 17;
    public static final int IBV_DEVICE_MEM_WINDOW_TYPE_2A = 1 << 23;
    public static final int IBV_DEVICE_MEM_WINDOW_TYPE_2B = 1 << 24;
    public static final int IBV_DEVICE_MEM_MGT_EXTENSIONS = 1 << 21;
}
