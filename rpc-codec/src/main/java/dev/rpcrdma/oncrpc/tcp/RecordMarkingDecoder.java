package dev.rpcrdma.oncrpc.tcp;

import dev.rpcrdma.oncrpc.RpcStats;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * RFC 5531 §11 record marking: reassembles records from fragments (4-byte header, high bit = last fragment,
 * low 31 bits = fragment length) and emits each record as one {@link ByteBuf} (the next handler releases it).
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
    private final List<ByteBuf> fragments = new ArrayList<>(2);
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
            long fragmentLength = mark & ~LAST_FRAGMENT;
            if (recordLength + fragmentLength > maxRecordSize) {
                refuse(ctx, in, fragmentLength);
                return;
            }
            if (in.readableBytes() < 4 + fragmentLength) {
                return;
            }
            in.skipBytes(4);
            fragments.add(in.readRetainedSlice((int) fragmentLength));
            recordLength += (int) fragmentLength;
            if ((mark & LAST_FRAGMENT) != 0) {
                out.add(takeRecord(ctx));
            }
        }
    }

    private ByteBuf takeRecord(ChannelHandlerContext ctx) {
        ByteBuf record;
        if (fragments.size() == 1) {
            record = fragments.get(0);
        } else {
            CompositeByteBuf composite = ctx.alloc().compositeBuffer(fragments.size());
            composite.addComponents(true, fragments);
            record = composite;
        }
        fragments.clear();
        recordLength = 0;
        return record;
    }

    private void refuse(ChannelHandlerContext ctx, ByteBuf in, long fragmentLength) {
        refused = true;
        stats.recordOversizedRecord();
        logger.warn("{} RPC record fragment of {} bytes would make the record {} bytes, over the maximum {}: "
                + "closing the connection (RFC 5531 §11)", ctx.channel(), fragmentLength,
                recordLength + fragmentLength, maxRecordSize);
        releaseFragments();
        in.skipBytes(in.readableBytes());
        ctx.close();
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (!refused) {
            decode(ctx, in, out);
        }
        if (!refused && (in.isReadable() || !fragments.isEmpty())) {
            stats.recordTruncatedRecord();
            logger.warn("{} connection ended inside an RPC record ({} bytes reassembled, {} bytes of an incomplete "
                    + "fragment): discarded", ctx.channel(), recordLength, in.readableBytes());
            in.skipBytes(in.readableBytes());
            releaseFragments();
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        releaseFragments();
    }

    private void releaseFragments() {
        for (ByteBuf f : fragments) {
            f.release();
        }
        fragments.clear();
        recordLength = 0;
    }
}
