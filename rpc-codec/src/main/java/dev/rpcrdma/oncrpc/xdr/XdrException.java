package dev.rpcrdma.oncrpc.xdr;

/**
 * A peer sent XDR (RFC 4506) that cannot be decoded: a truncated item, a declared length over its bound or over
 * the bytes that remain, an invalid boolean or discriminant. Decoders throw this checked exception instead of
 * letting an {@link IndexOutOfBoundsException} escape into the event loop, so that every caller has to decide
 * what the protocol answer is (GARBAGE_ARGS, a dropped record, a failed call).
 */
public class XdrException extends Exception {

    private static final long serialVersionUID = 1L;

    /** Creates an exception with the given description. */
    public XdrException(String message) {
        super(message);
    }

    /** Creates an exception with the given description and cause. */
    public XdrException(String message, Throwable cause) {
        super(message, cause);
    }
}
