package dev.rpcrdma.oncrpc.message;

/** RFC 5531 §9 {@code accept_stat}: the outcome of an accepted call. */
public final class AcceptStat extends RpcConstant {

    /** {@code SUCCESS = 0}. */
    public static final AcceptStat SUCCESS = new AcceptStat(0, "SUCCESS");

    /** {@code PROG_UNAVAIL = 1}. */
    public static final AcceptStat PROG_UNAVAIL = new AcceptStat(1, "PROG_UNAVAIL");

    /** {@code PROG_MISMATCH = 2}. */
    public static final AcceptStat PROG_MISMATCH = new AcceptStat(2, "PROG_MISMATCH");

    /** {@code PROC_UNAVAIL = 3}. */
    public static final AcceptStat PROC_UNAVAIL = new AcceptStat(3, "PROC_UNAVAIL");

    /** {@code GARBAGE_ARGS = 4}. */
    public static final AcceptStat GARBAGE_ARGS = new AcceptStat(4, "GARBAGE_ARGS");

    /** {@code SYSTEM_ERR = 5}. */
    public static final AcceptStat SYSTEM_ERR = new AcceptStat(5, "SYSTEM_ERR");

    private AcceptStat(int value, String name) {
        super(value, name);
    }

    /** The constant for {@code value}; values without a name get a new {@code UNKNOWN(n)} instance. */
    public static AcceptStat valueOf(int value) {
        switch (value) {
            case 0:
                return SUCCESS;
            case 1:
                return PROG_UNAVAIL;
            case 2:
                return PROG_MISMATCH;
            case 3:
                return PROC_UNAVAIL;
            case 4:
                return GARBAGE_ARGS;
            case 5:
                return SYSTEM_ERR;
            default:
                return new AcceptStat(value, "UNKNOWN(" + value + ')');
        }
    }

    /** Whether {@code value} is one of the constants RFC 5531 defines for this type. */
    public boolean isKnown() {
        return !name().startsWith("UNKNOWN(");
    }
}
