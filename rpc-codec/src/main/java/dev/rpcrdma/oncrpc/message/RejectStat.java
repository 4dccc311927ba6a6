package dev.rpcrdma.oncrpc.message;

/** RFC 5531 §9 {@code reject_stat}: why a call was denied. */
public final class RejectStat extends RpcConstant {

    /** {@code RPC_MISMATCH = 0}. */
    public static final RejectStat RPC_MISMATCH = new RejectStat(0, "RPC_MISMATCH");

    /** {@code AUTH_ERROR = 1}. */
    public static final RejectStat AUTH_ERROR = new RejectStat(1, "AUTH_ERROR");

    private RejectStat(int value, String name) {
        super(value, name);
    }

    /** The constant for {@code value}; values without a name get a new {@code UNKNOWN(n)} instance. */
    public static RejectStat valueOf(int value) {
        switch (value) {
            case 0:
                return RPC_MISMATCH;
            case 1:
                return AUTH_ERROR;
            default:
                return new RejectStat(value, "UNKNOWN(" + value + ')');
        }
    }

    /** Whether {@code value} is one of the constants RFC 5531 defines for this type. */
    public boolean isKnown() {
        return !name().startsWith("UNKNOWN(");
    }
}
