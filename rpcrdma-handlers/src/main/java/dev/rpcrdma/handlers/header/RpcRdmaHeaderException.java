package dev.rpcrdma.handlers.header;

/**
 * A received transport header that cannot be accepted, with the answer RFC 8166 §4.5 prescribes for it.
 */
public final class RpcRdmaHeaderException extends Exception {

    private static final long serialVersionUID = 1L;

    /** What the receiver must do about the bad header. */
    public enum Action {
        /** Too short to trust its XID: silently discard (RFC 8166 §4.5). */
        DISCARD,
        /** Unsupported version: answer RDMA_ERROR / ERR_VERS (RFC 8166 §4.5.1). */
        ERR_VERS,
        /** Unparseable or unusable header: answer RDMA_ERROR / ERR_CHUNK (RFC 8166 §4.5.2). */
        ERR_CHUNK
    }

    private final Action action;
    private final int xid;
    private final boolean xidValid;
    private final int version;

    RpcRdmaHeaderException(Action action, int xid, boolean xidValid, int version, String message) {
        super(message, null, false, false);
        this.action = action;
        this.xid = xid;
        this.xidValid = xidValid;
        this.version = version;
    }

    public static RpcRdmaHeaderException discard(String message) {
        return new RpcRdmaHeaderException(Action.DISCARD, 0, false, 0, message);
    }

    public static RpcRdmaHeaderException errVers(int xid, int version, String message) {
        return new RpcRdmaHeaderException(Action.ERR_VERS, xid, true, version, message);
    }

    public static RpcRdmaHeaderException errChunk(int xid, String message) {
        return new RpcRdmaHeaderException(Action.ERR_CHUNK, xid, true, RpcRdmaHeader.VERSION_1, message);
    }

    /** The {@code rdma_vers} of the offending message, repeated in the RDMA_ERROR reply (RFC 8166 §4.5). */
    public int version() {
        return version;
    }

    /**
     * The RDMA_ERROR header that answers this failure ({@code null} for {@link Action#DISCARD}).
     *
     * @param credits the credit grant to carry
     */
    public RpcRdmaHeader errorReply(int credits) {
        switch (action) {
            case ERR_VERS:
                return RpcRdmaHeader.errVers(xid, version, credits, RpcRdmaHeader.VERSION_1, RpcRdmaHeader.VERSION_1);
            case ERR_CHUNK:
                return RpcRdmaHeader.errChunk(xid, credits);
            default:
                return null;
        }
    }

    /** The prescribed answer. */
    public Action action() {
        return action;
    }

    /** The XID of the offending message, for the RDMA_ERROR reply; meaningful only if {@link #xidValid()}. */
    public int xid() {
        return xid;
    }

    /** Whether the header was long enough for its XID to be trusted. */
    public boolean xidValid() {
        return xidValid;
    }
}
