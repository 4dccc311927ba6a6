package dev.rpcrdma.handlers.interop.nfs41;

import dev.rpcrdma.oncrpc.xdr.XdrException;

/**
 * An NFSv4.1 operation in a COMPOUND (or the COMPOUND itself) answered with a status other than NFS4_OK
 * (RFC 5661 §15.1). An {@link XdrException} so that a reply decoder can fail its call with it; the call's future
 * then carries it as the cause.
 */
public final class Nfs4StatusException extends XdrException {
    private static final long serialVersionUID = 1L;

    private final int op;
    private final int status;

    Nfs4StatusException(int op, int status) {
        super("NFSv4.1 operation " + op + " failed with status " + status);
        this.op = op;
        this.status = status;
    }

    /** The operation number (0 for the COMPOUND status of an empty result array). */
    public int op() {
        return op;
    }

    /** The nfsstat4. */
    public int status() {
        return status;
    }
}
