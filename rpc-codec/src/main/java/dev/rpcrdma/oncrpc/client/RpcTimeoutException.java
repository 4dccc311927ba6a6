package dev.rpcrdma.oncrpc.client;

/** No reply arrived within the call's timeout; a late reply will be dropped and counted as an unknown xid. */
public final class RpcTimeoutException extends RpcException {

    private static final long serialVersionUID = 1L;

    /** With a description. */
    public RpcTimeoutException(String message) {
        super(message);
    }
}
