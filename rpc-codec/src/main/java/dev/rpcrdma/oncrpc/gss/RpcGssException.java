package dev.rpcrdma.oncrpc.gss;

import dev.rpcrdma.oncrpc.client.RpcException;

/**
 * An RPCSEC_GSS failure on the client: the server refused to create the context (its GSS major and minor status),
 * a reply verifier or protected result that does not verify, or a context that can no longer be used (destroyed,
 * sequence numbers exhausted). A call that fails with it was not answered validly; establish a new context.
 */
public final class RpcGssException extends RpcException {

    private static final long serialVersionUID = 1L;

    private final int major;
    private final int minor;

    RpcGssException(String message) {
        this(message, 0, 0, null);
    }

    RpcGssException(String message, Throwable cause) {
        this(message, 0, 0, cause);
    }

    RpcGssException(String message, int major, int minor, Throwable cause) {
        super(message, cause);
        this.major = major;
        this.minor = minor;
    }

    /** The GSS major status the server reported (RFC 2744 encoding), 0 when it is not a server's INIT failure. */
    public int major() {
        return major;
    }

    /** The mechanism's minor status the server reported, 0 if none. */
    public int minor() {
        return minor;
    }
}
