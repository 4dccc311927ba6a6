package dev.rpcrdma.channel.fabric;

/** {@code enum ibv_wc_opcode} values. */
public final class WcOpcode {
    public static final int SEND = 0;
    public static final int RDMA_WRITE = 1;
    public static final int RDMA_READ = 2;
    public static final int COMP_SWAP = 3;
    public static final int FETCH_ADD = 4;
    public static final int BIND_MW = 5;
    public static final int LOCAL_INV = 6;
    public static final int TSO = 7;
    public static final int RECV = 128;
    public static final int RECV_RDMA_WITH_IMM = 129;

    private WcOpcode() {
    }
}
