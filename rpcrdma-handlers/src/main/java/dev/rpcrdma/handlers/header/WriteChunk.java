package dev.rpcrdma.handlers.header;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A Write chunk (RFC 8166 §3.4.6, {@code xdr_write_chunk}): a counted array of RDMA segments into which the
 * responder writes one result data item. The same structure is used for the Reply chunk (RFC 8166 §3.5.3).
 *
 * @param segments the segments, in the order the data fills them
 */
public record WriteChunk(List<RdmaSegment> segments) {

    public WriteChunk {
        segments = List.copyOf(requireNonNull(segments, "segments"));
    }

    /** A chunk of the given segments. */
    public static WriteChunk of(RdmaSegment... segments) {
        return new WriteChunk(List.of(segments));
    }

    /** Sum of the segment lengths, computed in 64 bits (lengths are unsigned 32-bit values). */
    public long totalLength() {
        long total = 0;
        for (RdmaSegment s : segments) {
            total += s.unsignedLength();
        }
        return total;
    }

    /** Encoded size: the segment count and the segments. */
    public int encodedLength() {
        return 4 + segments.size() * RdmaSegment.ENCODED_LENGTH;
    }
}
