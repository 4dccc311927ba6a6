package dev.rpcrdma.handlers.header;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * An RPC-over-RDMA Version 1 transport header (RFC 8166 §4.1, {@code rdma_msg}): the fixed fields (XID, version,
 * credit value, procedure) and, for RDMA_MSG / RDMA_NOMSG, the three chunk lists; for RDMA_ERROR the error code and,
 * for ERR_VERS, the supported version range.
 *
 * <p>Immutable. Instances are built with the static factories ({@link #msg}, {@link #nomsg}, {@link #errVers},
 * {@link #errChunk}) or produced by {@link RpcRdmaHeaderDecoder}.
 */
public final class RpcRdmaHeader {

    /** The only transport header version this implementation speaks (RFC 8166 §4.2.2). */
    public static final int VERSION_1 = 1;
    /** Fixed fields: xid, vers, credit, proc. */
    public static final int FIXED_LENGTH = 16;
    /** The smallest valid RDMA_MSG/RDMA_NOMSG header: fixed fields and three empty lists (RFC 8166 §4.5). */
    public static final int MIN_MSG_LENGTH = 28;
    /** An RDMA_ERROR ERR_CHUNK header: fixed fields and the error code. */
    public static final int MIN_ERROR_LENGTH = 20;

    private final int xid;
    private final int version;
    private final int credits;
    private final RdmaProcedure procedure;
    private final List<ReadSegment> readList;
    private final List<WriteChunk> writeList;
    private final WriteChunk replyChunk;
    private final RdmaErrorCode errorCode;
    private final int lowVersion;
    private final int highVersion;

    private RpcRdmaHeader(int xid, int version, int credits, RdmaProcedure procedure, List<ReadSegment> readList,
                          List<WriteChunk> writeList, WriteChunk replyChunk, RdmaErrorCode errorCode,
                          int lowVersion, int highVersion) {
        this.xid = xid;
        this.version = version;
        this.credits = credits;
        this.procedure = requireNonNull(procedure, "procedure");
        // Empty lists (most headers) are shared: List.copyOf of an empty list still allocates.
        this.readList = readList.isEmpty() ? List.of() : List.copyOf(readList);
        this.writeList = writeList.isEmpty() ? List.of() : List.copyOf(writeList);
        this.replyChunk = replyChunk;
        this.errorCode = errorCode;
        this.lowVersion = lowVersion;
        this.highVersion = highVersion;
    }

    /** An RDMA_MSG header: the RPC message follows inline (RFC 8166 §3.5.1, §3.5.2). */
    public static RpcRdmaHeader msg(int xid, int credits, List<ReadSegment> readList, List<WriteChunk> writeList,
                                    WriteChunk replyChunk) {
        return new RpcRdmaHeader(xid, VERSION_1, credits, RdmaProcedure.RDMA_MSG, readList, writeList, replyChunk,
                null, 0, 0);
    }

    /** An RDMA_MSG header with empty chunk lists. */
    public static RpcRdmaHeader msg(int xid, int credits) {
        return msg(xid, credits, List.of(), List.of(), null);
    }

    /**
     * An RDMA_NOMSG header: the RPC message is in the position-zero Read chunk (Long Call) or in the Reply chunk
     * (Long Reply), RFC 8166 §3.5.3.
     */
    public static RpcRdmaHeader nomsg(int xid, int credits, List<ReadSegment> readList, List<WriteChunk> writeList,
                                      WriteChunk replyChunk) {
        return new RpcRdmaHeader(xid, VERSION_1, credits, RdmaProcedure.RDMA_NOMSG, readList, writeList, replyChunk,
                null, 0, 0);
    }

    /**
     * An RDMA_ERROR / ERR_VERS header naming the supported range (RFC 8166 §4.5.1). Its {@code rdma_vers} repeats
     * the version of the failing request (RFC 8166 §4.5).
     */
    public static RpcRdmaHeader errVers(int xid, int requestVersion, int credits, int lowVersion, int highVersion) {
        return new RpcRdmaHeader(xid, requestVersion, credits, RdmaProcedure.RDMA_ERROR, List.of(), List.of(), null,
                RdmaErrorCode.ERR_VERS, lowVersion, highVersion);
    }

    /** An RDMA_ERROR / ERR_CHUNK header (RFC 8166 §4.5.2). */
    public static RpcRdmaHeader errChunk(int xid, int credits) {
        return new RpcRdmaHeader(xid, VERSION_1, credits, RdmaProcedure.RDMA_ERROR, List.of(), List.of(), null,
                RdmaErrorCode.ERR_CHUNK, 0, 0);
    }

    /** A header as decoded from the wire, possibly with a version other than 1 (kept to report it). */
    static RpcRdmaHeader decoded(int xid, int version, int credits, RdmaProcedure procedure,
                                 List<ReadSegment> readList, List<WriteChunk> writeList, WriteChunk replyChunk,
                                 RdmaErrorCode errorCode, int lowVersion, int highVersion) {
        return new RpcRdmaHeader(xid, version, credits, procedure, readList, writeList, replyChunk, errorCode,
                lowVersion, highVersion);
    }

    /** {@code rdma_xid}: the XID of the RPC message this header carries (RFC 8166 §4.2.1). */
    public int xid() {
        return xid;
    }

    /** {@code rdma_vers}. */
    public int version() {
        return version;
    }

    /** {@code rdma_credit}: credits requested (requester) or granted (responder), RFC 8166 §3.3.1. */
    public int credits() {
        return credits;
    }

    /** {@code rdma_proc}. */
    public RdmaProcedure procedure() {
        return procedure;
    }

    /** The Read list, in wire order (empty when absent). */
    public List<ReadSegment> readList() {
        return readList;
    }

    /** The Write list, in wire order (empty when absent). */
    public List<WriteChunk> writeList() {
        return writeList;
    }

    /** The Reply chunk, or {@code null} when absent. */
    public WriteChunk replyChunk() {
        return replyChunk;
    }

    /** For RDMA_ERROR: the error code; otherwise {@code null}. */
    public RdmaErrorCode errorCode() {
        return errorCode;
    }

    /** For ERR_VERS: the lowest version the peer supports. */
    public int lowVersion() {
        return lowVersion;
    }

    /** For ERR_VERS: the highest version the peer supports. */
    public int highVersion() {
        return highVersion;
    }

    /** True when any chunk list is present. */
    public boolean hasChunks() {
        return !readList.isEmpty() || !writeList.isEmpty() || replyChunk != null;
    }

    /** Sum of all Read list segment lengths, in 64 bits. */
    public long readListLength() {
        long total = 0;
        for (ReadSegment s : readList) {
            total += s.segment().unsignedLength();
        }
        return total;
    }

    /** The number of bytes {@link RpcRdmaHeaderEncoder#encode} writes for this header. */
    public int encodedLength() {
        if (procedure.equals(RdmaProcedure.RDMA_ERROR)) {
            return RdmaErrorCode.ERR_VERS.equals(errorCode) ? MIN_ERROR_LENGTH + 8 : MIN_ERROR_LENGTH;
        }
        int length = MIN_MSG_LENGTH + readList.size() * (4 + ReadSegment.ENCODED_LENGTH);
        for (WriteChunk chunk : writeList) {
            length += 4 + chunk.encodedLength();
        }
        if (replyChunk != null) {
            length += replyChunk.encodedLength();
        }
        return length;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("RpcRdmaHeader(xid=0x").append(Integer.toHexString(xid))
                .append(", vers=").append(version).append(", credits=").append(credits)
                .append(", ").append(procedure);
        if (errorCode != null) {
            sb.append(", ").append(errorCode);
            if (RdmaErrorCode.ERR_VERS.equals(errorCode)) {
                sb.append(' ').append(lowVersion).append("..").append(highVersion);
            }
        } else {
            sb.append(", reads=").append(readList.size()).append(", writes=").append(writeList.size())
                    .append(", reply=").append(replyChunk != null);
        }
        return sb.append(')').toString();
    }
}
