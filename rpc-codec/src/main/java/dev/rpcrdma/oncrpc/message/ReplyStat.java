package dev.rpcrdma.oncrpc.message;

/** RFC 5531 §9 {@code reply_stat}. */
public final class ReplyStat extends RpcConstant {

    /** {@code MSG_ACCEPTED = 0}. */
    public static final ReplyStat MSG_ACCEPTED = new ReplyStat(0, "MSG_ACCEPTED");

    /** {@code MSG_DENIED = 1}. */
    public static final ReplyStat MSG_DENIED = new ReplyStat(1, "MSG_DENIED");

    private ReplyStat(int value, String name) {
        super(value, name);
    }

    /** The constant for {@code value}; values without a name get a new {@code UNKNOWN(n)} instance. */
    public static ReplyStat valueOf(int value) {
        switch (value) {
            case 0:
                return MSG_ACCEPTED;
            case 1:
                return MSG_DENIED;
            default:
                return new ReplyStat(value, "UNKNOWN(" + value + ')');
        }
    }

    /** Whether {@code value} is one of the constants RFC 5531 defines for this type. */
    public boolean isKnown() {
        return !name().startsWith("UNKNOWN(");
    }
}
