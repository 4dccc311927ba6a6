package dev.rpcrdma.oncrpc.message;

import dev.rpcrdma.oncrpc.xdr.LocalPool;
import io.netty.util.Recycler;
import io.netty.util.internal.ObjectUtil;

import java.util.Arrays;

/**
 * RFC 5531 §9 {@code call_body} header: xid, rpcvers, prog, vers, proc, cred, verf. Two local hints, never on the
 * wire and ignored by TCP, let an RPC-over-RDMA requester provision reply resources before sending (RFC 8166 §3.5.2,
 * §3.5.4): {@link #replyDdpItems()} and {@link #maxReplySize()}. A decoded call may be unacceptable before any
 * procedure sees it ({@link #rpcvers()} other than 2, or an {@link #authError()}); the dispatcher answers MSG_DENIED.
 */
public final class RpcCall extends RpcMessage {

    /** RFC 5531 §9: the only RPC protocol version. */
    public static final int RPC_VERSION = 2;
    /** No DDP-eligible reply items (shared: a zero-length array has no state). */
    private static final int[] NO_ITEMS = new int[0];

    /** Headers carried by pooled messages (see {@link RpcMessage}); per thread, as Netty's pooled buffers. */
    private static final LocalPool<RpcCall> POOL = new LocalPool<>(new Recycler<RpcCall>() {
        @Override
        protected RpcCall newObject(Handle<RpcCall> handle) {
            return new RpcCall(handle);
        }
    });

    /** Null for a value made by a constructor (immutable, never recycled). */
    private final Recycler.Handle<RpcCall> handle;
    // Not final only for pooled headers (set in init, by the thread that took the header from the pool).
    private int rpcvers;
    private int program;
    private int version;
    private int procedure;
    private OpaqueAuth credential;
    private OpaqueAuth verifier;
    private AuthStat authError;
    private int[] replyDdpItems;
    private int maxReplySize;

    private RpcCall(Recycler.Handle<RpcCall> handle) {
        super(0);
        this.handle = handle;
    }

    /**
     * A header from the pool, for a message that owns it; {@code replyDdpItems} is kept, not copied (the caller
     * guarantees it never changes, e.g. {@code CallOptions}' own array).
     */
    static RpcCall pooled(int xid, int rpcvers, int program, int version, int procedure, OpaqueAuth credential,
                          OpaqueAuth verifier, AuthStat authError, int[] replyDdpItems, int maxReplySize) {
        RpcCall call = POOL.get();
        call.xid = xid;
        call.rpcvers = rpcvers;
        call.program = program;
        call.version = version;
        call.procedure = procedure;
        call.credential = credential;
        call.verifier = verifier;
        call.authError = authError;
        call.replyDdpItems = replyDdpItems.length == 0 ? NO_ITEMS : replyDdpItems;
        call.maxReplySize = maxReplySize;
        return call;
    }

    @Override
    public boolean isPooled() {
        return handle != null;
    }

    @Override
    public RpcCall copy() {
        return handle == null ? this : withXid(xid());
    }

    @Override
    void recycle() {
        if (handle != null) {
            credential = null;
            verifier = null;
            authError = null;
            replyDdpItems = NO_ITEMS;
            POOL.recycle(this, handle);
        }
    }

    /** A version-2 call with the given credential and an AUTH_NONE verifier, no reply hints. */
    public RpcCall(int xid, int program, int version, int procedure, OpaqueAuth credential) {
        this(xid, RPC_VERSION, program, version, procedure, credential, OpaqueAuth.NONE, null, 0, 0);
    }

    /**
     * Every field, with at most one DDP-eligible reply item ({@code maxDdpReplyItem} 0: none); {@code authError} is
     * normally null (set by decoders only).
     */
    public RpcCall(int xid, int rpcvers, int program, int version, int procedure, OpaqueAuth credential,
                   OpaqueAuth verifier, AuthStat authError, int maxDdpReplyItem, int maxReplySize) {
        this(xid, rpcvers, program, version, procedure, credential, verifier, authError,
                ObjectUtil.checkPositiveOrZero(maxDdpReplyItem, "maxDdpReplyItem") > 0
                        ? new int[] {maxDdpReplyItem} : NO_ITEMS, maxReplySize);
    }

    /**
     * Every field, with one size per DDP-eligible reply item ({@code replyDdpItems}, copied); {@code authError} is
     * normally null (set by decoders only).
     */
    public RpcCall(int xid, int rpcvers, int program, int version, int procedure, OpaqueAuth credential,
                   OpaqueAuth verifier, AuthStat authError, int[] replyDdpItems, int maxReplySize) {
        super(xid);
        this.handle = null;
        this.rpcvers = rpcvers;
        this.program = program;
        this.version = version;
        this.procedure = procedure;
        this.credential = ObjectUtil.checkNotNull(credential, "credential");
        this.verifier = ObjectUtil.checkNotNull(verifier, "verifier");
        this.authError = authError;
        this.replyDdpItems = ObjectUtil.checkNotNull(replyDdpItems, "replyDdpItems").length == 0 ? NO_ITEMS
                : replyDdpItems.clone();
        for (int i = 0; i < this.replyDdpItems.length; i++) {
            ObjectUtil.checkPositiveOrZero(this.replyDdpItems[i], "replyDdpItems[" + i + "]");
        }
        this.maxReplySize = ObjectUtil.checkPositiveOrZero(maxReplySize, "maxReplySize");
    }

    @Override
    public MsgType msgType() {
        return MsgType.CALL;
    }

    /** RPC protocol version; 2 unless a peer sent something else. */
    public int rpcvers() {
        return rpcvers;
    }

    /** Program number. */
    public int program() {
        return program;
    }

    /** Program version. */
    public int version() {
        return version;
    }

    /** Procedure number. */
    public int procedure() {
        return procedure;
    }

    /** The credential (flavor + opaque body). */
    public OpaqueAuth credential() {
        return credential;
    }

    /** The verifier. */
    public OpaqueAuth verifier() {
        return verifier;
    }

    /**
     * Set when the decoder found the credential or verifier structurally unacceptable (e.g. a body over 400 bytes:
     * AUTH_BADCRED); otherwise null.
     */
    public AuthStat authError() {
        return authError;
    }

    /** Local hint: largest DDP-eligible item expected in the reply (0: none). Never encoded. */
    public int maxDdpReplyItem() {
        int max = 0;
        for (int s : replyDdpItems) {
            max = Math.max(max, s);
        }
        return max;
    }

    /**
     * Local hint: the largest size of each DDP-eligible item expected in the reply, in XDR stream order, so that one
     * Write chunk per item can be offered (0: that item is wanted inline, an empty Write chunk, RFC 8166 §4.3.2.3);
     * empty if none. A copy. Never encoded.
     */
    public int[] replyDdpItems() {
        return replyDdpItems.length == 0 ? NO_ITEMS : replyDdpItems.clone();
    }

    /** Number of DDP-eligible reply items hinted (the length of {@link #replyDdpItems()}), without a copy. */
    public int replyDdpItemCount() {
        return replyDdpItems.length;
    }

    /** The size hint of DDP-eligible reply item {@code index}, without a copy. */
    public int replyDdpItem(int index) {
        return replyDdpItems[index];
    }

    /**
     * Local hint: largest expected reply message in bytes (0: unknown), so that a Reply chunk can be offered when the
     * reply may exceed the inline threshold. Never encoded.
     */
    public int maxReplySize() {
        return maxReplySize;
    }

    /** A copy with a different xid. */
    public RpcCall withXid(int xid) {
        return new RpcCall(xid, rpcvers, program, version, procedure, credential, verifier, authError,
                replyDdpItems, maxReplySize);
    }

    /** A copy carrying the two local reply hints, with at most one DDP-eligible reply item (0: none). */
    public RpcCall withReplyHints(int maxDdpReplyItem, int maxReplySize) {
        return new RpcCall(xid(), rpcvers, program, version, procedure, credential, verifier, authError,
                maxDdpReplyItem, maxReplySize);
    }

    /** A copy carrying the local reply hints: one size per DDP-eligible reply item (copied) and the reply size. */
    public RpcCall withReplyHints(int[] replyDdpItems, int maxReplySize) {
        return new RpcCall(xid(), rpcvers, program, version, procedure, credential, verifier, authError,
                replyDdpItems, maxReplySize);
    }

    @Override
    public String toString() {
        return "RpcCall(xid=" + Integer.toUnsignedString(xid()) + ", rpcvers=" + rpcvers + ", prog="
                + Integer.toUnsignedString(program) + ", vers=" + version + ", proc=" + procedure + ", cred="
                + credential + (authError != null ? ", authError=" + authError : "")
                + (replyDdpItems.length > 0 ? ", replyDdpItems=" + Arrays.toString(replyDdpItems) : "") + ')';
    }
}
