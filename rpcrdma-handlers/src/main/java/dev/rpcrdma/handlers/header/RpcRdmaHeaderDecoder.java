package dev.rpcrdma.handlers.header;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Decodes RPC-over-RDMA Version 1 transport headers (RFC 8166 §4.1) from received Send payloads, checking every
 * count, length and position against {@link RpcRdmaLimits} and against the bytes actually received before
 * allocating anything for it.
 *
 * <p>On success the buffer's reader index is left at the first byte after the header (the RPC message of an
 * RDMA_MSG). On failure an {@link RpcRdmaHeaderException} names the answer RFC 8166 §4.5 prescribes.
 */
public final class RpcRdmaHeaderDecoder {

    private final RpcRdmaLimits limits;

    /** A decoder with the given bounds. */
    public RpcRdmaHeaderDecoder(RpcRdmaLimits limits) {
        this.limits = requireNonNull(limits, "limits");
    }

    /** A decoder with {@link RpcRdmaLimits#DEFAULT}. */
    public RpcRdmaHeaderDecoder() {
        this(RpcRdmaLimits.DEFAULT);
    }

    /**
     * Decodes one header from {@code in}; does not take ownership of {@code in}.
     *
     * @throws RpcRdmaHeaderException when the header must be discarded or answered with RDMA_ERROR
     */
    public RpcRdmaHeader decode(ByteBuf in) throws RpcRdmaHeaderException {
        final int length = in.readableBytes();
        if (length < RpcRdmaHeader.FIXED_LENGTH) {
            throw RpcRdmaHeaderException.discard("transport header of " + length
                    + " bytes is shorter than the 28-byte minimum (RFC 8166 §4.5)");
        }
        final int start = in.readerIndex();
        final int xid = in.getInt(start);
        final int version = in.getInt(start + 4);
        final int credits = in.getInt(start + 8);
        final RdmaProcedure procedure = RdmaProcedure.valueOf(in.getInt(start + 12));
        final boolean isError = RdmaProcedure.RDMA_ERROR.equals(procedure);
        if (length < RpcRdmaHeader.MIN_MSG_LENGTH && !(isError && length >= RpcRdmaHeader.MIN_ERROR_LENGTH)) {
            // RFC 8166 §4.5: shorter than a minimal header, the XID cannot be trusted.
            throw RpcRdmaHeaderException.discard("transport header of " + length
                    + " bytes is shorter than the 28-byte minimum (RFC 8166 §4.5)");
        }
        if (isError) {
            // RFC 8166 §4.5: an RDMA_ERROR repeats the rdma_vers of the request it answers, and the four fixed
            // fields are laid out alike in every version, so it is decoded whatever its version: a requester can
            // then complete the RPC instead of leaving it to time out.
            in.skipBytes(RpcRdmaHeader.FIXED_LENGTH);
            return decodeError(in, xid, version, credits);
        }
        if (version != RpcRdmaHeader.VERSION_1) {
            throw RpcRdmaHeaderException.errVers(xid, version, "unsupported transport header version "
                    + Integer.toUnsignedString(version) + " (RFC 8166 §4.5.1: only 1 is supported)");
        }
        in.skipBytes(RpcRdmaHeader.FIXED_LENGTH);
        if (RdmaProcedure.RDMA_MSGP.equals(procedure) || RdmaProcedure.RDMA_DONE.equals(procedure)) {
            throw RpcRdmaHeaderException.errChunk(xid, procedure
                    + " is no longer part of RPC-over-RDMA Version 1 (RFC 8166 §4.6)");
        }
        if (!RdmaProcedure.RDMA_MSG.equals(procedure) && !RdmaProcedure.RDMA_NOMSG.equals(procedure)) {
            throw RpcRdmaHeaderException.errChunk(xid, "unknown transport procedure " + procedure
                    + " (RFC 8166 §4.5.2)");
        }
        List<ReadSegment> reads = decodeReadList(in, xid);
        List<WriteChunk> writes = decodeWriteList(in, xid);
        WriteChunk reply = decodeOptionalChunk(in, xid, "reply chunk");
        if (RdmaProcedure.RDMA_NOMSG.equals(procedure) && reads.isEmpty() && writes.isEmpty() && reply == null) {
            throw RpcRdmaHeaderException.errChunk(xid,
                    "RDMA_NOMSG without any chunk cannot carry an RPC message (RFC 8166 §4.5.2)");
        }
        return RpcRdmaHeader.decoded(xid, version, credits, procedure, reads, writes, reply, null, 0, 0);
    }

    /**
     * True if {@code in} starts with the commonest transport header: an RDMA_MSG of version 1 with empty Read and
     * Write lists and no Reply chunk (RFC 8166 §4.1; the 28 bytes {@link RpcRdmaHeaderEncoder#encodePlainMsg}
     * writes). For such input {@link #decode} succeeds with exactly these fields and no chunk, so a caller may
     * instead read the xid ({@link #plainXid}) and credit value ({@link #plainCredits}) and skip
     * {@link RpcRdmaHeader#MIN_MSG_LENGTH} bytes, without building a header object. Any other input (another
     * version, procedure or discriminant, or fewer than 28 bytes) must go through {@link #decode}, which applies
     * every check of RFC 8166 §4.5. Does not move the reader index.
     */
    public static boolean isPlainMsg(ByteBuf in) {
        if (in.readableBytes() < RpcRdmaHeader.MIN_MSG_LENGTH) {
            return false;
        }
        int start = in.readerIndex();
        // Four reads (big-endian: the low word of each long is the second XDR word), not five.
        return (int) in.getLong(start) == RpcRdmaHeader.VERSION_1
                && (int) in.getLong(start + 8) == RdmaProcedure.RDMA_MSG.intValue()
                && in.getLong(start + 16) == 0 // Read list and Write list: end
                && in.getInt(start + 24) == 0; // Reply chunk: absent
    }

    /** The rdma_xid of a header {@link #isPlainMsg} accepted (RFC 8166 §4.1). */
    public static int plainXid(ByteBuf in) {
        return in.getInt(in.readerIndex());
    }

    /** The rdma_credit of a header {@link #isPlainMsg} accepted (RFC 8166 §4.1). */
    public static int plainCredits(ByteBuf in) {
        return in.getInt(in.readerIndex() + 8);
    }

    private static RpcRdmaHeader decodeError(ByteBuf in, int xid, int version, int credits)
            throws RpcRdmaHeaderException {
        RdmaErrorCode code = RdmaErrorCode.valueOf(in.readInt());
        if (RdmaErrorCode.ERR_VERS.equals(code)) {
            if (in.readableBytes() < 8) {
                throw RpcRdmaHeaderException.errChunk(xid, "ERR_VERS without its version range");
            }
            int low = in.readInt();
            int high = in.readInt();
            return RpcRdmaHeader.decoded(xid, version, credits, RdmaProcedure.RDMA_ERROR, List.of(), List.of(),
                    null, code, low, high);
        }
        if (RdmaErrorCode.ERR_CHUNK.equals(code)) {
            return RpcRdmaHeader.decoded(xid, version, credits, RdmaProcedure.RDMA_ERROR, List.of(), List.of(),
                    null, code, 0, 0);
        }
        throw RpcRdmaHeaderException.errChunk(xid, "unknown RDMA_ERROR code " + code);
    }

    private List<ReadSegment> decodeReadList(ByteBuf in, int xid) throws RpcRdmaHeaderException {
        List<ReadSegment> reads = null;
        int lastPosition = 0;
        long chunkLength = 0;
        while (discriminator(in, xid, "read list")) {
            if (in.readableBytes() < ReadSegment.ENCODED_LENGTH) {
                throw RpcRdmaHeaderException.errChunk(xid, "read list runs past the end of the header");
            }
            int count = reads == null ? 0 : reads.size();
            if (count == limits.maxReadSegments()) {
                throw RpcRdmaHeaderException.errChunk(xid, "read list has more than " + limits.maxReadSegments()
                        + " segments");
            }
            int position = in.readInt();
            RdmaSegment segment = readSegment(in);
            if ((position & 3) != 0) {
                // RFC 8166 §3.4.5: XDR positions are multiples of four.
                throw RpcRdmaHeaderException.errChunk(xid, "read chunk position "
                        + Integer.toUnsignedString(position) + " is not XDR-aligned");
            }
            if (count > 0 && Integer.compareUnsigned(position, lastPosition) < 0) {
                // Chunks are listed in ascending XDR position; a smaller one overlaps an earlier chunk.
                throw RpcRdmaHeaderException.errChunk(xid, "read chunk at position "
                        + Integer.toUnsignedString(position) + " overlaps the chunk at "
                        + Integer.toUnsignedString(lastPosition));
            }
            chunkLength = count > 0 && position == lastPosition ? chunkLength + segment.unsignedLength()
                    : segment.unsignedLength();
            if (chunkLength > limits.maxChunkLength()) {
                throw RpcRdmaHeaderException.errChunk(xid, "read chunk at position "
                        + Integer.toUnsignedString(position) + " exceeds " + limits.maxChunkLength() + " bytes");
            }
            lastPosition = position;
            if (reads == null) {
                reads = new ArrayList<>(4);
            }
            reads.add(new ReadSegment(position, segment));
        }
        return reads == null ? Collections.emptyList() : reads;
    }

    private List<WriteChunk> decodeWriteList(ByteBuf in, int xid) throws RpcRdmaHeaderException {
        List<WriteChunk> writes = null;
        while (discriminator(in, xid, "write list")) {
            int count = writes == null ? 0 : writes.size();
            if (count == limits.maxWriteChunks()) {
                throw RpcRdmaHeaderException.errChunk(xid, "write list has more than " + limits.maxWriteChunks()
                        + " chunks");
            }
            // RFC 8166 §3.4.6, §4.3.2.3: an empty Write chunk (no segments) asks for its item inline.
            WriteChunk chunk = decodeChunk(in, xid, "write chunk", true);
            if (writes == null) {
                writes = new ArrayList<>(2);
            }
            writes.add(chunk);
        }
        return writes == null ? Collections.emptyList() : writes;
    }

    private WriteChunk decodeOptionalChunk(ByteBuf in, int xid, String what) throws RpcRdmaHeaderException {
        return discriminator(in, xid, what) ? decodeChunk(in, xid, what, false) : null;
    }

    private WriteChunk decodeChunk(ByteBuf in, int xid, String what, boolean mayBeEmpty)
            throws RpcRdmaHeaderException {
        if (in.readableBytes() < 4) {
            throw RpcRdmaHeaderException.errChunk(xid, what + " runs past the end of the header");
        }
        long segcount = in.readUnsignedInt();
        if (segcount == 0 && !mayBeEmpty) {
            throw RpcRdmaHeaderException.errChunk(xid, what + " has no segments");
        }
        if (segcount > limits.maxSegmentsPerChunk()) {
            throw RpcRdmaHeaderException.errChunk(xid, what + " has " + segcount + " segments, more than "
                    + limits.maxSegmentsPerChunk());
        }
        // Bounded and checked against the received bytes before anything is allocated for it.
        if (in.readableBytes() < segcount * RdmaSegment.ENCODED_LENGTH) {
            throw RpcRdmaHeaderException.errChunk(xid, what + " of " + segcount
                    + " segments runs past the end of the header");
        }
        RdmaSegment[] segments = new RdmaSegment[(int) segcount];
        long total = 0;
        for (int i = 0; i < segments.length; i++) {
            segments[i] = readSegment(in);
            total += segments[i].unsignedLength();
        }
        if (total > limits.maxChunkLength()) {
            throw RpcRdmaHeaderException.errChunk(xid, what + " describes " + total + " bytes, more than "
                    + limits.maxChunkLength());
        }
        return WriteChunk.of(segments);
    }

    private static RdmaSegment readSegment(ByteBuf in) {
        int handle = in.readInt();
        int length = in.readInt();
        long offset = in.readLong();
        return new RdmaSegment(handle, length, offset);
    }

    /** Reads an optional-data discriminant (RFC 8166 §4.1: 1 = an item follows, 0 = end). */
    private static boolean discriminator(ByteBuf in, int xid, String what) throws RpcRdmaHeaderException {
        if (in.readableBytes() < 4) {
            throw RpcRdmaHeaderException.errChunk(xid, what + " runs past the end of the header");
        }
        int value = in.readInt();
        if (value == 0) {
            return false;
        }
        if (value == 1) {
            return true;
        }
        throw RpcRdmaHeaderException.errChunk(xid, what + " has invalid optional-data discriminant "
                + Integer.toUnsignedString(value));
    }
}
