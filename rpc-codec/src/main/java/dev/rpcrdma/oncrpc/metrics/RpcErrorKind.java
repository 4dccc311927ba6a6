package dev.rpcrdma.oncrpc.metrics;

/**
 * Why a call failed, as {@link RpcMetrics} counts it: the RFC 5531 §9 answers a server gives (or a client
 * receives), and the client-side failures that never got an answer.
 */
public enum RpcErrorKind {
    /** MSG_ACCEPTED PROG_UNAVAIL. */
    PROG_UNAVAIL,
    /** MSG_ACCEPTED PROG_MISMATCH. */
    PROG_MISMATCH,
    /** MSG_ACCEPTED PROC_UNAVAIL. */
    PROC_UNAVAIL,
    /** MSG_ACCEPTED GARBAGE_ARGS. */
    GARBAGE_ARGS,
    /** MSG_ACCEPTED SYSTEM_ERR. */
    SYSTEM_ERR,
    /** MSG_DENIED (RPC_MISMATCH or AUTH_ERROR). */
    DENIED,
    /** Client: no reply within the call's timeout. */
    TIMEOUT,
    /** Client: the connection closed, or the call could not be written. */
    CONNECTION_CLOSED,
    /** Client: the results did not decode. */
    DECODE,
    /** Client: the transport failed the call (e.g. RPC-over-RDMA's RDMA_ERROR), or anything else. */
    TRANSPORT
}
