package dev.rpcrdma.oncrpc.client;

/** Base of the failures a client call can end with (besides {@link dev.rpcrdma.oncrpc.xdr.XdrException}). */
public class RpcException extends Exception {

    private static final long serialVersionUID = 1L;

    /** An exception with a description. */
    public RpcException(String message) {
        super(message);
    }

    /** An exception with a description and cause. */
    public RpcException(String message, Throwable cause) {
        super(message, cause);
    }
}
