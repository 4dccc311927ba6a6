package dev.rpcrdma.oncrpc.message;

import dev.rpcrdma.oncrpc.xdr.LocalPool;
import io.netty.util.Recycler;
import io.netty.util.internal.ObjectUtil;

/**
 * RFC 5531 §9 {@code reply_body} header.
 * <ul>
 *   <li>MSG_ACCEPTED: a verifier and an {@link AcceptStat}; SUCCESS is followed by the results (carried beside
 *       this header), PROG_MISMATCH by the supported low/high versions; the others carry nothing.</li>
 *   <li>MSG_DENIED: a {@link RejectStat}; RPC_MISMATCH carries the supported low/high RPC versions, AUTH_ERROR an
 *       {@link AuthStat}.</li>
 * </ul>
 * Build replies with the static factories: immutable values. (A reply header a pooled message carries is valid
 * only until that message is released: see {@link RpcMessage}.)
 */
public final class RpcReply extends RpcMessage {

    /** Headers carried by pooled messages (see {@link RpcMessage}); per thread, as Netty's pooled buffers. */
    private static final LocalPool<RpcReply> POOL = new LocalPool<>(new Recycler<RpcReply>() {
        @Override
        protected RpcReply newObject(Handle<RpcReply> handle) {
            return new RpcReply(handle);
        }
    });

    /** Null for a value made by a factory (immutable, never recycled). */
    private final Recycler.Handle<RpcReply> handle;
    // Not final only for pooled headers (set in init, by the thread that took the header from the pool).
    private ReplyStat replyStat;
    private OpaqueAuth verifier;
    private AcceptStat acceptStat;
    private RejectStat rejectStat;
    private AuthStat authStat;
    private int mismatchLow;
    private int mismatchHigh;

    private RpcReply(Recycler.Handle<RpcReply> handle) {
        super(0);
        this.handle = handle;
    }

    private RpcReply(int xid, ReplyStat replyStat, OpaqueAuth verifier, AcceptStat acceptStat,
                     RejectStat rejectStat, AuthStat authStat, int low, int high) {
        super(xid);
        this.handle = null;
        init(replyStat, verifier, acceptStat, rejectStat, authStat, low, high);
    }

    private void init(ReplyStat replyStat, OpaqueAuth verifier, AcceptStat acceptStat, RejectStat rejectStat,
                      AuthStat authStat, int low, int high) {
        this.replyStat = replyStat;
        this.verifier = verifier;
        this.acceptStat = acceptStat;
        this.rejectStat = rejectStat;
        this.authStat = authStat;
        this.mismatchLow = low;
        this.mismatchHigh = high;
    }

    /** A header from the pool, for a message that owns it; the arguments were checked by the caller. */
    static RpcReply pooled(int xid, ReplyStat replyStat, OpaqueAuth verifier, AcceptStat acceptStat,
                           RejectStat rejectStat, AuthStat authStat, int low, int high) {
        RpcReply reply = POOL.get();
        reply.xid = xid;
        reply.init(replyStat, verifier, acceptStat, rejectStat, authStat, low, high);
        return reply;
    }

    /** An immutable value with every field given; the arguments were checked by the caller. */
    static RpcReply value(int xid, ReplyStat replyStat, OpaqueAuth verifier, AcceptStat acceptStat,
                          RejectStat rejectStat, AuthStat authStat, int low, int high) {
        return new RpcReply(xid, replyStat, verifier, acceptStat, rejectStat, authStat, low, high);
    }

    /** A pooled MSG_ACCEPTED reply with {@code verifier} and {@code stat} (not PROG_MISMATCH). */
    static RpcReply pooledAccepted(int xid, OpaqueAuth verifier, AcceptStat stat) {
        return pooled(xid, ReplyStat.MSG_ACCEPTED, verifier, stat, null, null, 0, 0);
    }

    @Override
    public boolean isPooled() {
        return handle != null;
    }

    @Override
    public RpcReply copy() {
        return handle == null ? this
                : new RpcReply(xid(), replyStat, verifier, acceptStat, rejectStat, authStat, mismatchLow, mismatchHigh);
    }

    @Override
    void recycle() {
        if (handle != null) {
            init(null, null, null, null, null, 0, 0);
            POOL.recycle(this, handle);
        }
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

    /**
     * This reply with {@code verifier} if it is MSG_ACCEPTED (a security flavor's reply verifier), otherwise this
     * reply (MSG_DENIED carries none). An immutable value.
     */
    public RpcReply withVerifier(OpaqueAuth verifier) {
        ObjectUtil.checkNotNull(verifier, "verifier");
        if (!ReplyStat.MSG_ACCEPTED.equals(replyStat)) {
            return copy();
        }
        return new RpcReply(xid(), replyStat, verifier, acceptStat, rejectStat, authStat, mismatchLow, mismatchHigh);
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
