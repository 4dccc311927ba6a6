package dev.rpcrdma.oncrpc.tcp;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.xdr.RetainedSlice;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.List;

/**
 * RFC 5531 §11 record marking: reassembles records from fragments (4-byte header, high bit = last fragment,
 * low 31 bits = fragment length) and emits each record as one {@link ByteBuf} (the next handler releases it).
 * A single-fragment record is a zero-copy slice; the fragments of a multi-fragment record are copied into one
 * buffer as they complete (so many tiny fragments cost no per-fragment objects; empty fragments cost nothing).
 *
 * <p>A fragment that would make the record exceed {@code maxRecordSize} is refused from its header alone, before
 * any of its bytes are accumulated: logged, counted in {@link RpcStats#oversizedRecords()}, the connection is
 * closed (a stream cannot be resynchronised without reading the whole fragment). A connection that ends inside a
 * record: logged, counted in {@link RpcStats#truncatedRecords()}, the partial record released.
 */
public final class RecordMarkingDecoder extends ByteToMessageDecoder {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RecordMarkingDecoder.class);

    /** RFC 5531 §11: the last-fragment bit of a record mark. */
    static final int LAST_FRAGMENT = 0x8000_0000;

    private final int maxRecordSize;
    private final RpcStats stats;
    /** Data of the earlier fragments of a multi-fragment record (copied: one buffer, bounded by the maximum). */
    private ByteBuf partial;
    private int recordLength;
    private boolean refused;

    /** A decoder accepting records of at most {@code maxRecordSize} bytes. */
    public RecordMarkingDecoder(int maxRecordSize, RpcStats stats) {
        this.maxRecordSize = ObjectUtil.checkPositive(maxRecordSize, "maxRecordSize");
        this.stats = ObjectUtil.checkNotNull(stats, "stats");
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (!refused && in.readableBytes() >= 4) {
            int mark = in.getInt(in.readerIndex());
            int fragmentLength = mark & ~LAST_FRAGMENT;
            boolean last = (mark & LAST_FRAGMENT) != 0;
            // Checked from the header alone, before the fragment's bytes are waited for or kept.
            if ((long) recordLength + fragmentLength > maxRecordSize) {
                refuse(ctx, in, fragmentLength);
                return;
            }
            if (in.readableBytes() < 4 + fragmentLength) {
                return;
            }
            in.skipBytes(4);
            if (last && partial == null) {
                // The common case: a single-fragment record, passed on without copying.
                out.add(RetainedSlice.readRetainedSlice(in, fragmentLength));
                continue;
            }
            if (fragmentLength > 0) {
                if (partial == null) {
                    partial = ctx.alloc().buffer(fragmentLength, maxRecordSize);
                }
                partial.writeBytes(in, fragmentLength);
                recordLength += fragmentLength;
            }
            if (last) {
                out.add(partial);
                partial = null;
                recordLength = 0;
            }
        }
    }

    private void refuse(ChannelHandlerContext ctx, ByteBuf in, long fragmentLength) {
        refused = true;
        stats.recordOversizedRecord();
        logger.warn("{} RPC record fragment of {} bytes would make the record {} bytes, over the maximum {}: "
                + "closing the connection (RFC 5531 §11)", ctx.channel(), fragmentLength,
                recordLength + fragmentLength, maxRecordSize);
        releasePartial();
        in.skipBytes(in.readableBytes());
        ctx.close();
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (!refused) {
            decode(ctx, in, out);
        }
        if (!refused && (in.isReadable() || partial != null)) {
            stats.recordTruncatedRecord();
            logger.warn("{} connection ended inside an RPC record ({} bytes reassembled, {} bytes of an incomplete "
                    + "fragment): discarded", ctx.channel(), recordLength, in.readableBytes());
            in.skipBytes(in.readableBytes());
            releasePartial();
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        releasePartial();
    }

    private void releasePartial() {
        if (partial != null) {
            partial.release();
            partial = null;
        }
        recordLength = 0;
    }
}
