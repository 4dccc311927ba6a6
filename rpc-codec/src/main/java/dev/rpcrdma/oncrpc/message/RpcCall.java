package dev.rpcrdma.oncrpc.message;

import io.netty.util.internal.ObjectUtil;

/**
 * RFC 5531 §9 {@code call_body} header: xid, rpcvers, prog, vers, proc, cred, verf.
 *
 * <p>Two <em>local hints</em> (never on the wire) let an RPC-over-RDMA requester provision reply resources
 * before sending the call (RFC 8166 §3.5.2, §3.5.4, §3.6): {@link #maxDdpReplyItem()}, the largest DDP-eligible
 * item the reply may carry (so a Write chunk can be offered), and {@link #maxReplySize()}, the largest expected
 * reply (so a Reply chunk can be offered when the reply may exceed the inline threshold). Zero means "none
 * expected" / "unknown". TCP ignores both.
 *
 * <p>A decoded call may be <em>unacceptable</em> before any procedure sees it: {@link #rpcvers()} other than 2
 * (the rest of the header is then not decoded, RFC 5531 §9), or {@link #authError()} not null when the
 * credential or verifier could not be accepted structurally (e.g. a body over 400 bytes: AUTH_BADCRED). The
 * server dispatcher answers those with MSG_DENIED.
 */
public final class RpcCall extends RpcMessage {

    /** RFC 5531 §9: the only RPC protocol version. */
    public static final int RPC_VERSION = 2;

    private final int rpcvers;
    private final int program;
    private final int version;
    private final int procedure;
    private final OpaqueAuth credential;
    private final OpaqueAuth verifier;
    private final AuthStat authError;
    private final int maxDdpReplyItem;
    private final int maxReplySize;

    /** A version-2 call with the given credential and an AUTH_NONE verifier, no reply hints. */
    public RpcCall(int xid, int program, int version, int procedure, OpaqueAuth credential) {
        this(xid, RPC_VERSION, program, version, procedure, credential, OpaqueAuth.NONE, null, 0, 0);
    }

    /** Every field; {@code authError} is normally null (set by decoders only). */
    public RpcCall(int xid, int rpcvers, int program, int version, int procedure, OpaqueAuth credential,
                   OpaqueAuth verifier, AuthStat authError, int maxDdpReplyItem, int maxReplySize) {
        super(xid);
        this.rpcvers = rpcvers;
        this.program = program;
        this.version = version;
        this.procedure = procedure;
        this.credential = ObjectUtil.checkNotNull(credential, "credential");
        this.verifier = ObjectUtil.checkNotNull(verifier, "verifier");
        this.authError = authError;
        this.maxDdpReplyItem = ObjectUtil.checkPositiveOrZero(maxDdpReplyItem, "maxDdpReplyItem");
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

    /** Set when the decoder found the credential/verifier unacceptable (e.g. AUTH_BADCRED); otherwise null. */
    public AuthStat authError() {
        return authError;
    }

    /** Local hint: largest DDP-eligible item expected in the reply (0: none). Never encoded. */
    public int maxDdpReplyItem() {
        return maxDdpReplyItem;
    }

    /** Local hint: largest expected reply message in bytes (0: unknown). Never encoded. */
    public int maxReplySize() {
        return maxReplySize;
    }

    /** A copy with a different xid. */
    public RpcCall withXid(int xid) {
        return new RpcCall(xid, rpcvers, program, version, procedure, credential, verifier, authError,
                maxDdpReplyItem, maxReplySize);
    }

    /** A copy carrying the two local reply hints. */
    public RpcCall withReplyHints(int maxDdpReplyItem, int maxReplySize) {
        return new RpcCall(xid(), rpcvers, program, version, procedure, credential, verifier, authError,
                maxDdpReplyItem, maxReplySize);
    }

    @Override
    public String toString() {
        return "RpcCall(xid=" + Integer.toUnsignedString(xid()) + ", rpcvers=" + rpcvers + ", prog="
                + Integer.toUnsignedString(program) + ", vers=" + version + ", proc=" + procedure + ", cred="
                + credential + (authError != null ? ", authError=" + authError : "") + ')';
    }
}
