package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.handlers.header.RdmaProcedure;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderException;
import dev.rpcrdma.oncrpc.xdr.Xdr;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;

import java.util.List;

/**
 * Where the Read chunks of a call go (RFC 8166 §3.4.5, §3.5.3), checked against the message before any RDMA Read
 * is issued, and the reassembly of the XDR stream once they were pulled.
 *
 * <p>The base stream is the inline part of an RDMA_MSG or the position-zero Read chunk of an RDMA_NOMSG (Long
 * Call). Every other chunk is inserted at its position, followed by its XDR pad (which the requester does not send,
 * RFC 8166 §3.4.5.2). A chunk's offset in the base stream is its position minus the bytes already inserted; it must
 * not precede the previous insertion point and must not lie past the end of the base stream.
 */
final class CallReassembly {

    private static final byte[] ZEROS = new byte[4];

    /** The position-zero chunk of a Long Call, or null. */
    final ReadChunk positionZero;
    /** The chunks inserted into the base stream, in order. */
    final List<ReadChunk> inserted;
    /** Total bytes to pull. */
    final long totalRead;
    /** What the inserted chunks add to the base stream: their data and XDR pads. */
    private final long insertedBytes;

    /** The plan of every call without Read chunks (shared: it has no per-call state). */
    private static final CallReassembly INLINE = new CallReassembly(null, List.of(), 0, 0);

    /** The bytes of the Read chunks at non-zero positions (reduced data items, without their pads). */
    long reducedBytes() {
        long n = 0;
        for (ReadChunk c : inserted) {
            n += c.length();
        }
        return n;
    }

    private CallReassembly(ReadChunk positionZero, List<ReadChunk> inserted, long totalRead, long insertedBytes) {
        this.positionZero = positionZero;
        this.inserted = inserted;
        this.totalRead = totalRead;
        this.insertedBytes = insertedBytes;
    }

    /**
     * Plans the reassembly of a call and checks it.
     *
     * @param inlineLength bytes of RPC message that followed the header inline (RDMA_MSG)
     * @throws RpcRdmaHeaderException ERR_CHUNK for chunks that cannot belong to this message
     */
    static CallReassembly plan(RpcRdmaHeader header, int inlineLength, int maxMessageSize)
            throws RpcRdmaHeaderException {
        int xid = header.xid();
        boolean nomsg = RdmaProcedure.RDMA_NOMSG.equals(header.procedure());
        if (header.readList().isEmpty() && !nomsg && inlineLength <= maxMessageSize) {
            return INLINE; // the common call: nothing to pull, nothing to check beyond this
        }
        List<ReadChunk> chunks = ReadChunk.group(header.readList());
        ReadChunk zero = !chunks.isEmpty() && chunks.get(0).position() == 0 ? chunks.get(0) : null;
        if (nomsg && zero == null) {
            // RFC 8166 §3.5.3: an RDMA_NOMSG call carries its message in the position-zero Read chunk.
            throw RpcRdmaHeaderException.errChunk(xid, "RDMA_NOMSG call without a position-zero Read chunk");
        }
        if (!nomsg && zero != null) {
            throw RpcRdmaHeaderException.errChunk(xid, "RDMA_MSG call with a position-zero Read chunk");
        }
        if (nomsg && inlineLength != 0) {
            throw RpcRdmaHeaderException.errChunk(xid, "RDMA_NOMSG call followed by " + inlineLength
                    + " inline bytes");
        }
        List<ReadChunk> rest = zero == null ? chunks : chunks.subList(1, chunks.size());
        long base = zero == null ? inlineLength : zero.length();
        long total = zero == null ? 0 : zero.length();
        long insertedBytes = 0;
        long cursor = 0;
        for (ReadChunk c : rest) {
            long offset = Integer.toUnsignedLong(c.position()) - insertedBytes;
            if (offset < cursor) {
                throw RpcRdmaHeaderException.errChunk(xid, "Read chunk at position "
                        + Integer.toUnsignedString(c.position()) + " overlaps the previous chunk");
            }
            if (offset > base) {
                // RFC 8166 §4.5.2: a chunk positioned past the end of the Payload stream.
                throw RpcRdmaHeaderException.errChunk(xid, "Read chunk at position "
                        + Integer.toUnsignedString(c.position()) + " lies past the " + base
                        + "-byte message body");
            }
            cursor = offset;
            insertedBytes += c.length() + ((4 - (c.length() & 3)) & 3);
            total += c.length();
        }
        // The whole message: the inline part or the position-zero chunk (counted once), and the inserted chunks
        // with their pads.
        if (base + insertedBytes > maxMessageSize) {
            throw RpcRdmaHeaderException.errChunk(xid, "Read chunks total " + total + " bytes, a message of "
                    + (base + insertedBytes) + " bytes, more than the " + maxMessageSize + "-byte message limit");
        }
        return new CallReassembly(zero, List.copyOf(rest), total, insertedBytes);
    }

    /**
     * The length of the whole XDR stream of an RDMA_MSG call with {@code inlineLength} inline bytes: the inline part,
     * the inserted chunks and their pads. Bounded by the largest message ({@link #plan} checked it).
     */
    int messageLength(int inlineLength) {
        return (int) (inlineLength + insertedBytes);
    }

    /**
     * Where inserted chunk {@code i} starts in the whole XDR stream: its position (RFC 8166 §3.4.5.1, which counts
     * the data and pads of the chunks before it). Bounded by {@link #messageLength} ({@link #plan} checked it).
     */
    int streamOffset(int i) {
        return (int) Integer.toUnsignedLong(inserted.get(i).position());
    }

    /** {@link #streamOffset} of every inserted chunk, in order: where an in-place pull puts each one. */
    int[] streamOffsets() {
        int[] offsets = new int[inserted.size()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = streamOffset(i);
        }
        return offsets;
    }

    /**
     * Builds the XDR stream in place, in {@code target}, which holds each inserted chunk's data at its
     * {@link #streamOffset} (pulled there): copies the inline parts of {@code base} into the gaps around them and
     * writes the XDR pads. The result is {@code target} itself, one contiguous buffer of {@link #messageLength}
     * bytes, as a stack that views a message as one {@code ByteBuffer} (Hadoop's XDR) needs it. Takes ownership of
     * both buffers.
     */
    ByteBuf assembleInPlace(ByteBuf base, ByteBuf target) {
        int baseStart = base.readerIndex();
        long added = 0;
        int cursor = 0;
        for (int i = 0; i < inserted.size(); i++) {
            int len = (int) inserted.get(i).length();
            int offset = (int) (Integer.toUnsignedLong(inserted.get(i).position()) - added);
            target.setBytes((int) (cursor + added), base, baseStart + cursor, offset - cursor);
            int pad = Xdr.pad(len);
            target.setBytes(streamOffset(i) + len, ZEROS, 0, pad);
            added += len + pad;
            cursor = offset;
        }
        int end = base.readableBytes();
        target.setBytes((int) (cursor + added), base, baseStart + cursor, end - cursor);
        target.setIndex(0, messageLength(end));
        base.release();
        return target;
    }

    /**
     * Builds the XDR stream: {@code base} with each inserted chunk's data and pad. Takes ownership of {@code base}
     * and of {@code data} (one buffer per inserted chunk, in order).
     */
    ByteBuf assemble(ByteBufAllocator alloc, ByteBuf base, List<ByteBuf> data) {
        if (inserted.isEmpty()) {
            return base;
        }
        CompositeByteBuf out = alloc.compositeBuffer(inserted.size() * 3 + 1);
        int baseStart = base.readerIndex();
        long insertedBytes = 0;
        int cursor = 0;
        for (int i = 0; i < inserted.size(); i++) {
            ReadChunk c = inserted.get(i);
            int offset = (int) (Integer.toUnsignedLong(c.position()) - insertedBytes);
            if (offset > cursor) {
                out.addComponent(true, base.retainedSlice(baseStart + cursor, offset - cursor));
            }
            cursor = offset;
            ByteBuf d = data.get(i);
            int len = d.readableBytes();
            out.addComponent(true, d);
            int pad = Xdr.pad(len);
            if (pad != 0) {
                out.addComponent(true, Unpooled.wrappedBuffer(ZEROS, 0, pad));
            }
            insertedBytes += len + pad;
        }
        int end = base.readableBytes();
        if (end > cursor) {
            out.addComponent(true, base.retainedSlice(baseStart + cursor, end - cursor));
        }
        base.release();
        return out;
    }
}
