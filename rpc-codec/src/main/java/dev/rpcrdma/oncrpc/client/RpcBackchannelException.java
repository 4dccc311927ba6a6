package dev.rpcrdma.oncrpc.client;

/**
 * A backward call (server to client) that was not sent: the connection has no backchannel, the client's upper layer
 * has not enabled it on this connection (RFC 8167 §6: no reverse-direction call before the peer signalled it is
 * prepared), or the call is larger than the backchannel carries.
 */
public final class RpcBackchannelException extends RpcException {

    private static final long serialVersionUID = 1L;

    /** An exception with a description. */
    public RpcBackchannelException(String message) {
        super(message);
    }
}
