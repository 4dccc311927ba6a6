package dev.rpcrdma.oncrpc.client;

/** The connection closed (or was already closed) before the call was answered. */
public final class RpcConnectionClosedException extends RpcException {

    private static final long serialVersionUID = 1L;

    /** With a description. */
    public RpcConnectionClosedException(String message) {
        super(message);
    }

    /** With a description and cause. */
    public RpcConnectionClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}
