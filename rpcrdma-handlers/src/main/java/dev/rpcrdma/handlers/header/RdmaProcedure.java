package dev.rpcrdma.handlers.header;

import dev.rpcrdma.oncrpc.message.RpcConstant;

/**
 * The {@code rdma_proc} discriminant of an RPC-over-RDMA Version 1 transport header (RFC 8166 §4.2.4).
 *
 * <p>A value class in the style of Netty's codec-dns constants: the five procedures of the protocol are
 * constants; an unknown value received from a peer is still representable so that it can be reported.
 */
public final class RdmaProcedure extends RpcConstant {

    /** RPC message follows the transport header inline (RFC 8166 §4.2.4). */
    public static final RdmaProcedure RDMA_MSG = new RdmaProcedure(0, "RDMA_MSG");
    /** The RPC message is conveyed in a chunk: position-zero Read chunk or Reply chunk. */
    public static final RdmaProcedure RDMA_NOMSG = new RdmaProcedure(1, "RDMA_NOMSG");
    /** Padded message; RFC 8166 §4.6.1: MUST NOT be sent, answered with ERR_CHUNK. */
    public static final RdmaProcedure RDMA_MSGP = new RdmaProcedure(2, "RDMA_MSGP");
    /** Read-Read acknowledgement; RFC 8166 §4.6.2: MUST NOT be sent. */
    public static final RdmaProcedure RDMA_DONE = new RdmaProcedure(3, "RDMA_DONE");
    /** Transport-level error reply (RFC 8166 §4.5). */
    public static final RdmaProcedure RDMA_ERROR = new RdmaProcedure(4, "RDMA_ERROR");

    private RdmaProcedure(int value, String name) {
        super(value, name);
    }

    /** Returns the constant for {@code value}, or a new instance named {@code UNKNOWN(value)}. */
    public static RdmaProcedure valueOf(int value) {
        switch (value) {
            case 0: return RDMA_MSG;
            case 1: return RDMA_NOMSG;
            case 2: return RDMA_MSGP;
            case 3: return RDMA_DONE;
            case 4: return RDMA_ERROR;
            default: return new RdmaProcedure(value, "UNKNOWN(" + Integer.toUnsignedString(value) + ')');
        }
    }
}
