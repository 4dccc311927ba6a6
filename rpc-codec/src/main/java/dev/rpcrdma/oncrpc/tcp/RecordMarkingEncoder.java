package dev.rpcrdma.oncrpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import io.netty.util.internal.ObjectUtil;

import java.util.List;

/**
 * RFC 5531 §11 record marking: writes each outbound {@link ByteBuf} (one RPC message) as one record of fragments of
 * at most {@code maxFragmentSize} data bytes, the last one flagged, without copying the message:
 * <ul>
 *   <li>a single-fragment record whose buffer has 4 bytes of headroom before its reader index (as
 *       {@link RpcMessageEncoder} leaves) gets its record mark written in place;</li>
 *   <li>otherwise the record is a composite of 4-byte marks and slices of the message.</li>
 * </ul>
 * Emits one buffer per record. Releases the input (Netty encoder rule).
 */
@ChannelHandler.Sharable
public final class RecordMarkingEncoder extends MessageToMessageEncoder<ByteBuf> {

    /** Headroom an upstream encoder may leave for the record mark. */
    public static final int HEADROOM = 4;

    private final int maxFragmentSize;

    /** An encoder cutting records into fragments of at most {@code maxFragmentSize} bytes. */
    public RecordMarkingEncoder(int maxFragmentSize) {
        super(ByteBuf.class);
        this.maxFragmentSize = ObjectUtil.checkInRange(maxFragmentSize, 1, Integer.MAX_VALUE >>> 1,
                "maxFragmentSize");
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, ByteBuf msg, List<Object> out) {
        int length = msg.readableBytes();
        int start = msg.readerIndex();
        if (length <= maxFragmentSize && start >= HEADROOM && msg.refCnt() == 1 && !msg.isReadOnly()) {
            msg.setInt(start - HEADROOM, length | RecordMarkingDecoder.LAST_FRAGMENT);
            msg.readerIndex(start - HEADROOM);
            out.add(msg.retain());
            return;
        }
        int fragments = Math.max(1, (length + maxFragmentSize - 1) / maxFragmentSize);
        CompositeByteBuf record = ctx.alloc().compositeBuffer(2 * fragments);
        do {
            int n = Math.min(msg.readableBytes(), maxFragmentSize);
            boolean last = n == msg.readableBytes();
            ByteBuf mark = ctx.alloc().buffer(4).writeInt(last ? n | RecordMarkingDecoder.LAST_FRAGMENT : n);
            record.addComponent(true, mark);
            record.addComponent(true, msg.readRetainedSlice(n));
        } while (msg.isReadable());
        out.add(record);
    }
}
