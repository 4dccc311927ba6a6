package dev.rpcrdma.oncrpc.message;

import io.netty.util.internal.ObjectUtil;

/**
 * RFC 5531 §9 {@code reply_body} header.
 * <ul>
 *   <li>MSG_ACCEPTED: a verifier and an {@link AcceptStat}; SUCCESS is followed by the results (carried beside
 *       this header), PROG_MISMATCH by the supported low/high versions; the others carry nothing.</li>
 *   <li>MSG_DENIED: a {@link RejectStat}; RPC_MISMATCH carries the supported low/high RPC versions, AUTH_ERROR an
 *       {@link AuthStat}.</li>
 * </ul>
 * Build replies with the static factories. Immutable.
 */
public final class RpcReply extends RpcMessage {

    private final ReplyStat replyStat;
    private final OpaqueAuth verifier;
    private final AcceptStat acceptStat;
    private final RejectStat rejectStat;
    private final AuthStat authStat;
    private final int mismatchLow;
    private final int mismatchHigh;

    private RpcReply(int xid, ReplyStat replyStat, OpaqueAuth verifier, AcceptStat acceptStat,
                     RejectStat rejectStat, AuthStat authStat, int low, int high) {
        super(xid);
        this.replyStat = replyStat;
        this.verifier = verifier;
        this.acceptStat = acceptStat;
        this.rejectStat = rejectStat;
        this.authStat = authStat;
        this.mismatchLow = low;
        this.mismatchHigh = high;
    }

    /** MSG_ACCEPTED with the given status (not PROG_MISMATCH: use {@link #progMismatch}). */
    public static RpcReply accepted(int xid, OpaqueAuth verifier, AcceptStat stat) {
        ObjectUtil.checkNotNull(stat, "stat");
        if (stat.equals(AcceptStat.PROG_MISMATCH)) {
            throw new IllegalArgumentException("PROG_MISMATCH needs low/high: use progMismatch()");
        }
        return new RpcReply(xid, ReplyStat.MSG_ACCEPTED, ObjectUtil.checkNotNull(verifier, "verifier"), stat,
                null, null, 0, 0);
    }

    /** MSG_ACCEPTED SUCCESS with an AUTH_NONE verifier; the results follow. */
    public static RpcReply success(int xid) {
        return accepted(xid, OpaqueAuth.NONE, AcceptStat.SUCCESS);
    }

    /** MSG_ACCEPTED PROG_MISMATCH with the lowest and highest supported versions. */
    public static RpcReply progMismatch(int xid, int low, int high) {
        return new RpcReply(xid, ReplyStat.MSG_ACCEPTED, OpaqueAuth.NONE, AcceptStat.PROG_MISMATCH, null, null,
                low, high);
    }

    /** MSG_DENIED RPC_MISMATCH with the lowest and highest supported RPC versions. */
    public static RpcReply rpcMismatch(int xid, int low, int high) {
        return new RpcReply(xid, ReplyStat.MSG_DENIED, null, null, RejectStat.RPC_MISMATCH, null, low, high);
    }

    /** MSG_DENIED AUTH_ERROR with the reason. */
    public static RpcReply authError(int xid, AuthStat why) {
        return new RpcReply(xid, ReplyStat.MSG_DENIED, null, null, RejectStat.AUTH_ERROR,
                ObjectUtil.checkNotNull(why, "why"), 0, 0);
    }

    @Override
    public MsgType msgType() {
        return MsgType.REPLY;
    }

    /** MSG_ACCEPTED or MSG_DENIED. */
    public ReplyStat replyStat() {
        return replyStat;
    }

    /** Whether this is MSG_ACCEPTED SUCCESS (results follow). */
    public boolean isSuccess() {
        return AcceptStat.SUCCESS.equals(acceptStat);
    }

    /** The verifier of an accepted reply; null if denied. */
    public OpaqueAuth verifier() {
        return verifier;
    }

    /** The accept_stat of an accepted reply; null if denied. */
    public AcceptStat acceptStat() {
        return acceptStat;
    }

    /** The reject_stat of a denied reply; null if accepted. */
    public RejectStat rejectStat() {
        return rejectStat;
    }

    /** The auth_stat of an AUTH_ERROR denial; null otherwise. */
    public AuthStat authStat() {
        return authStat;
    }

    /** Lowest supported version for PROG_MISMATCH / RPC_MISMATCH. */
    public int mismatchLow() {
        return mismatchLow;
    }

    /** Highest supported version for PROG_MISMATCH / RPC_MISMATCH. */
    public int mismatchHigh() {
        return mismatchHigh;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("RpcReply(xid=").append(Integer.toUnsignedString(xid())).append(", ")
                .append(replyStat).append(", ").append(acceptStat != null ? acceptStat : rejectStat);
        if (AcceptStat.PROG_MISMATCH.equals(acceptStat) || RejectStat.RPC_MISMATCH.equals(rejectStat)) {
            sb.append(" low=").append(mismatchLow).append(" high=").append(mismatchHigh);
        }
        if (authStat != null) {
            sb.append(' ').append(authStat);
        }
        return sb.append(')').toString();
    }
}
