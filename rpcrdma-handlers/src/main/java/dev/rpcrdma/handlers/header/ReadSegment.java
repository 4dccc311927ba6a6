package dev.rpcrdma.handlers.header;

import static java.util.Objects.requireNonNull;

/**
 * One entry of a Read list (RFC 8166 §3.4.5, {@code xdr_read_chunk}): an RDMA segment and the XDR position in the
 * Payload stream where its data belongs. Consecutive entries with the same position form one Read chunk.
 *
 * @param position XDR position (byte offset in the unreduced Payload stream), a multiple of 4
 * @param segment  where the data lives in the requester's memory
 */
public record ReadSegment(int position, RdmaSegment segment) {

    /** Encoded size without the list discriminator: position plus the segment. */
    public static final int ENCODED_LENGTH = 4 + RdmaSegment.ENCODED_LENGTH;

    public ReadSegment {
        requireNonNull(segment, "segment");
    }

    /** The position as an unsigned value. */
    public long unsignedPosition() {
        return Integer.toUnsignedLong(position);
    }
}
