package dev.rpcrdma.oncrpc.xdr;

/** XDR (RFC 4506) constants and arithmetic shared by the reader, the writer and the payload. */
public final class Xdr {

    /** RFC 4506 §3: every item occupies a multiple of four bytes. */
    public static final int UNIT = 4;

    private Xdr() {
    }

    /** Number of zero bytes that follow {@code length} data bytes to reach a four-byte boundary (RFC 4506 §4.10). */
    public static int pad(int length) {
        return -length & (UNIT - 1);
    }

    /** {@code length} rounded up to a multiple of four. */
    public static long padded(long length) {
        return (length + UNIT - 1) & ~(long) (UNIT - 1);
    }
}
