package dev.rpcrdma.handlers;

import dev.rpcrdma.handlers.header.RdmaErrorCode;

import java.io.IOException;

/**
 * The responder answered an RPC with RDMA_ERROR (RFC 8166 §4.5): a permanent failure of that RPC. Carries the error
 * code and, for ERR_VERS, the version range the responder supports. {@code RpcClient.call(...)} completes
 * exceptionally with this exception itself.
 */
public final class RpcRdmaErrorException extends IOException {

    private static final long serialVersionUID = 1L;

    private final int xid;
    private final transient RdmaErrorCode code;
    private final int lowVersion;
    private final int highVersion;

    /** RDMA_ERROR {@code code} for {@code xid}; the version range is meaningful for ERR_VERS only. */
    public RpcRdmaErrorException(int xid, RdmaErrorCode code, int lowVersion, int highVersion) {
        this(xid, code, lowVersion, highVersion, null);
    }

    /**
     * As {@link #RpcRdmaErrorException(int, RdmaErrorCode, int, int)}, with what the requester knows of the likely
     * cause appended to the message ({@code detail} null: nothing), e.g. the Reply chunk size and the setting that
     * bounds it.
     */
    public RpcRdmaErrorException(int xid, RdmaErrorCode code, int lowVersion, int highVersion, String detail) {
        super("RDMA_ERROR " + code + (RdmaErrorCode.ERR_VERS.equals(code) ? " (supported versions " + lowVersion
                + ".." + highVersion + ")" : "") + " for xid " + Integer.toUnsignedString(xid)
                + (detail != null ? ": " + detail : ""));
        this.xid = xid;
        this.code = code;
        this.lowVersion = lowVersion;
        this.highVersion = highVersion;
    }

    /** The xid of the failed RPC. */
    public int xid() {
        return xid;
    }

    /** ERR_VERS or ERR_CHUNK. */
    public RdmaErrorCode code() {
        return code;
    }

    /** For ERR_VERS: lowest supported version. */
    public int lowVersion() {
        return lowVersion;
    }

    /** For ERR_VERS: highest supported version. */
    public int highVersion() {
        return highVersion;
    }
}
