package dev.rpcrdma.handlers.header;

import io.netty.buffer.ByteBuf;

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
        for (ReadSegment read : header.readList()) {
            out.writeInt(1);
            out.writeInt(read.position());
            writeSegment(read.segment(), out);
        }
        out.writeInt(0);
        for (WriteChunk chunk : header.writeList()) {
            out.writeInt(1);
            writeChunk(chunk, out);
        }
        out.writeInt(0);
        if (header.replyChunk() != null) {
            out.writeInt(1);
            writeChunk(header.replyChunk(), out);
        } else {
            out.writeInt(0);
        }
    }

    private static void writeChunk(WriteChunk chunk, ByteBuf out) {
        out.writeInt(chunk.segments().size());
        for (RdmaSegment segment : chunk.segments()) {
            writeSegment(segment, out);
        }
    }

    private static void writeSegment(RdmaSegment segment, ByteBuf out) {
        out.writeInt(segment.handle());
        out.writeInt(segment.length());
        out.writeLong(segment.offset());
    }
}
