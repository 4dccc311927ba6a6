package dev.rpcrdma.oncrpc.message;

/** RFC 5531 §8.2 / §10 {@code auth_flavor}; other numbers (IANA registry) are carried opaque. */
public final class AuthFlavor extends RpcConstant {

    /** {@code AUTH_NONE = 0}. */
    public static final AuthFlavor AUTH_NONE = new AuthFlavor(0, "AUTH_NONE");

    /** {@code AUTH_SYS = 1}. */
    public static final AuthFlavor AUTH_SYS = new AuthFlavor(1, "AUTH_SYS");

    /** {@code AUTH_SHORT = 2}. */
    public static final AuthFlavor AUTH_SHORT = new AuthFlavor(2, "AUTH_SHORT");

    /** {@code AUTH_DH = 3}. */
    public static final AuthFlavor AUTH_DH = new AuthFlavor(3, "AUTH_DH");

    /** {@code RPCSEC_GSS = 6}. */
    public static final AuthFlavor RPCSEC_GSS = new AuthFlavor(6, "RPCSEC_GSS");

    private AuthFlavor(int value, String name) {
        super(value, name);
    }

    /** The constant for {@code value}; values without a name get a new {@code UNKNOWN(n)} instance. */
    public static AuthFlavor valueOf(int value) {
        switch (value) {
            case 0:
                return AUTH_NONE;
            case 1:
                return AUTH_SYS;
            case 2:
                return AUTH_SHORT;
            case 3:
                return AUTH_DH;
            case 6:
                return RPCSEC_GSS;
            default:
                return new AuthFlavor(value, "UNKNOWN(" + value + ')');
        }
    }

    /** Whether {@code value} is one of the constants RFC 5531 defines for this type. */
    public boolean isKnown() {
        return !name().startsWith("UNKNOWN(");
    }
}
