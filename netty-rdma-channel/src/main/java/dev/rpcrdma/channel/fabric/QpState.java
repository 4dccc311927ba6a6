package dev.rpcrdma.channel.fabric;

/** {@code enum ibv_qp_state} values. */
public final class QpState {
    public static final int RESET = 0;
    public static final int INIT = 1;
    public static final int RTR = 2;
    public static final int RTS = 3;
    public static final int SQD = 4;
    public static final int SQE = 5;
    public static final int ERR = 6;

    private QpState() {
    }
}
