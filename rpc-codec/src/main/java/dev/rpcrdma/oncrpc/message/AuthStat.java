package dev.rpcrdma.oncrpc.message;

/** RFC 5531 §9 {@code auth_stat}: why authentication failed. */
public final class AuthStat extends RpcConstant {

    /** {@code AUTH_OK = 0}. */
    public static final AuthStat AUTH_OK = new AuthStat(0, "AUTH_OK");

    /** {@code AUTH_BADCRED = 1}. */
    public static final AuthStat AUTH_BADCRED = new AuthStat(1, "AUTH_BADCRED");

    /** {@code AUTH_REJECTEDCRED = 2}. */
    public static final AuthStat AUTH_REJECTEDCRED = new AuthStat(2, "AUTH_REJECTEDCRED");

    /** {@code AUTH_BADVERF = 3}. */
    public static final AuthStat AUTH_BADVERF = new AuthStat(3, "AUTH_BADVERF");

    /** {@code AUTH_REJECTEDVERF = 4}. */
    public static final AuthStat AUTH_REJECTEDVERF = new AuthStat(4, "AUTH_REJECTEDVERF");

    /** {@code AUTH_TOOWEAK = 5}. */
    public static final AuthStat AUTH_TOOWEAK = new AuthStat(5, "AUTH_TOOWEAK");

    /** {@code AUTH_INVALIDRESP = 6}. */
    public static final AuthStat AUTH_INVALIDRESP = new AuthStat(6, "AUTH_INVALIDRESP");

    /** {@code AUTH_FAILED = 7}. */
    public static final AuthStat AUTH_FAILED = new AuthStat(7, "AUTH_FAILED");

    /** {@code AUTH_KERB_GENERIC = 8}. */
    public static final AuthStat AUTH_KERB_GENERIC = new AuthStat(8, "AUTH_KERB_GENERIC");

    /** {@code AUTH_TIMEEXPIRE = 9}. */
    public static final AuthStat AUTH_TIMEEXPIRE = new AuthStat(9, "AUTH_TIMEEXPIRE");

    /** {@code AUTH_TKT_FILE = 10}. */
    public static final AuthStat AUTH_TKT_FILE = new AuthStat(10, "AUTH_TKT_FILE");

    /** {@code AUTH_DECODE = 11}. */
    public static final AuthStat AUTH_DECODE = new AuthStat(11, "AUTH_DECODE");

    /** {@code AUTH_NET_ADDR = 12}. */
    public static final AuthStat AUTH_NET_ADDR = new AuthStat(12, "AUTH_NET_ADDR");

    /** {@code RPCSEC_GSS_CREDPROBLEM = 13}. */
    public static final AuthStat RPCSEC_GSS_CREDPROBLEM = new AuthStat(13, "RPCSEC_GSS_CREDPROBLEM");

    /** {@code RPCSEC_GSS_CTXPROBLEM = 14}. */
    public static final AuthStat RPCSEC_GSS_CTXPROBLEM = new AuthStat(14, "RPCSEC_GSS_CTXPROBLEM");

    private AuthStat(int value, String name) {
        super(value, name);
    }

    /** The constant for {@code value}; values without a name get a new {@code UNKNOWN(n)} instance. */
    public static AuthStat valueOf(int value) {
        switch (value) {
            case 0:
                return AUTH_OK;
            case 1:
                return AUTH_BADCRED;
            case 2:
                return AUTH_REJECTEDCRED;
            case 3:
                return AUTH_BADVERF;
            case 4:
                return AUTH_REJECTEDVERF;
            case 5:
                return AUTH_TOOWEAK;
            case 6:
                return AUTH_INVALIDRESP;
            case 7:
                return AUTH_FAILED;
            case 8:
                return AUTH_KERB_GENERIC;
            case 9:
                return AUTH_TIMEEXPIRE;
            case 10:
                return AUTH_TKT_FILE;
            case 11:
                return AUTH_DECODE;
            case 12:
                return AUTH_NET_ADDR;
            case 13:
                return RPCSEC_GSS_CREDPROBLEM;
            case 14:
                return RPCSEC_GSS_CTXPROBLEM;
            default:
                return new AuthStat(value, "UNKNOWN(" + value + ')');
        }
    }

    /** Whether {@code value} is one of the constants RFC 5531 defines for this type. */
    public boolean isKnown() {
        return !name().startsWith("UNKNOWN(");
    }
}
