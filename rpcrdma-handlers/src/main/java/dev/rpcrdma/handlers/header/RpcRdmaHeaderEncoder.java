package dev.rpcrdma.handlers.header;

import io.netty.buffer.ByteBuf;

import java.util.List;

/** Encodes RPC-over-RDMA Version 1 transport headers (RFC 8166 §4.1). */
public final class RpcRdmaHeaderEncoder {

    private RpcRdmaHeaderEncoder() {
    }

    /** Writes {@code header} at the writer index of {@code out}; {@link RpcRdmaHeader#encodedLength()} bytes. */
    public static void encode(RpcRdmaHeader header, ByteBuf out) {
        out.writeInt(header.xid());
        out.writeInt(header.version());
        out.writeInt(header.credits());
        out.writeInt(header.procedure().intValue());
        if (RdmaProcedure.RDMA_ERROR.equals(header.procedure())) {
            out.writeInt(header.errorCode().intValue());
            if (RdmaErrorCode.ERR_VERS.equals(header.errorCode())) {
                out.writeInt(header.lowVersion());
                out.writeInt(header.highVersion());
            }
            return;
        }
        List<ReadSegment> reads = header.readList();
        for (int i = 0; i < reads.size(); i++) {
            ReadSegment read = reads.get(i);
            out.writeInt(1);
            out.writeInt(read.position());
            writeSegment(read.segment(), out);
        }
        out.writeInt(0);
        List<WriteChunk> writes = header.writeList();
        for (int i = 0; i < writes.size(); i++) {
            out.writeInt(1);
            writeChunk(writes.get(i), out);
        }
        out.writeInt(0);
        if (header.replyChunk() != null) {
            out.writeInt(1);
            writeChunk(header.replyChunk(), out);
        } else {
            out.writeInt(0);
        }
    }

    /**
     * Writes the RDMA_MSG header of version 1 with empty Read and Write lists and no Reply chunk
     * ({@link RpcRdmaHeader#MIN_MSG_LENGTH} bytes), as {@code encode(RpcRdmaHeader.msg(xid, credits), out)} would,
     * without a header object: the transport header of every call and reply that needs no chunk.
     */
    public static void encodePlainMsg(int xid, int credits, ByteBuf out) {
        // The seven XDR words in four writes (big-endian, as XDR): one bounds and accessibility check each, not seven.
        out.writeLong((long) xid << 32 | RpcRdmaHeader.VERSION_1 & 0xffffffffL);
        out.writeLong((long) credits << 32 | RdmaProcedure.RDMA_MSG.intValue() & 0xffffffffL);
        out.writeLong(0); // Read list and Write list: empty
        out.writeInt(0); // no Reply chunk
    }

    private static void writeChunk(WriteChunk chunk, ByteBuf out) {
        out.writeInt(chunk.segments().size());
        List<RdmaSegment> segments = chunk.segments();
        for (int i = 0; i < segments.size(); i++) {
            writeSegment(segments.get(i), out);
        }
    }

    private static void writeSegment(RdmaSegment segment, ByteBuf out) {
        out.writeInt(segment.handle());
        out.writeInt(segment.length());
        out.writeLong(segment.offset());
    }
}
