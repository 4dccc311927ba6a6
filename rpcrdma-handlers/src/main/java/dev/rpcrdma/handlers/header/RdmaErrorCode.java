package dev.rpcrdma.handlers.header;

import dev.rpcrdma.oncrpc.message.RpcConstant;

/** The {@code rpc_rdma_errcode} of an RDMA_ERROR message (RFC 8166 §4.2.4, §4.5). */
public final class RdmaErrorCode extends RpcConstant {

    /** The responder does not support the transport header version (RFC 8166 §4.5.1); carries low/high. */
    public static final RdmaErrorCode ERR_VERS = new RdmaErrorCode(1, "ERR_VERS");
    /** The transport header could not be parsed or its chunks are unusable (RFC 8166 §4.5.2). */
    public static final RdmaErrorCode ERR_CHUNK = new RdmaErrorCode(2, "ERR_CHUNK");

    private RdmaErrorCode(int value, String name) {
        super(value, name);
    }

    /** Returns the constant for {@code value}, or a new instance named {@code UNKNOWN(value)}. */
    public static RdmaErrorCode valueOf(int value) {
        switch (value) {
            case 1: return ERR_VERS;
            case 2: return ERR_CHUNK;
            default: return new RdmaErrorCode(value, "UNKNOWN(" + Integer.toUnsignedString(value) + ')');
        }
    }
}
