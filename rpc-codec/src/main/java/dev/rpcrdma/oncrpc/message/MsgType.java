package dev.rpcrdma.oncrpc.message;

/** RFC 5531 §9 {@code msg_type}. */
public final class MsgType extends RpcConstant {

    /** {@code CALL = 0}. */
    public static final MsgType CALL = new MsgType(0, "CALL");

    /** {@code REPLY = 1}. */
    public static final MsgType REPLY = new MsgType(1, "REPLY");

    private MsgType(int value, String name) {
        super(value, name);
    }

    /** The constant for {@code value}; values without a name get a new {@code UNKNOWN(n)} instance. */
    public static MsgType valueOf(int value) {
        switch (value) {
            case 0:
                return CALL;
            case 1:
                return REPLY;
            default:
                return new MsgType(value, "UNKNOWN(" + value + ')');
        }
    }

    /** Whether {@code value} is one of the constants RFC 5531 defines for this type. */
    public boolean isKnown() {
        return !name().startsWith("UNKNOWN(");
    }
}
