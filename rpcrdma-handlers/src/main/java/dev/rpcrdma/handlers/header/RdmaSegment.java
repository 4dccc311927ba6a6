package dev.rpcrdma.handlers.header;

/**
 * An RDMA segment (RFC 8166 §3.4.3): a handle (steering tag), a length and an offset in the peer's memory.
 *
 * @param handle the registered memory handle (rkey / STag) of the peer's memory
 * @param length length in bytes (an unsigned 32-bit value carried in an {@code int})
 * @param offset the peer's address or offset (opaque 64-bit value)
 */
public record RdmaSegment(int handle, int length, long offset) {

    /** Encoded size in bytes: handle, length, 64-bit offset. */
    public static final int ENCODED_LENGTH = 16;

    /** The length as an unsigned value. */
    public long unsignedLength() {
        return Integer.toUnsignedLong(length);
    }

    @Override
    public String toString() {
        return "RdmaSegment(handle=0x" + Integer.toHexString(handle) + ", length=" + unsignedLength()
                + ", offset=0x" + Long.toHexString(offset) + ')';
    }
}
