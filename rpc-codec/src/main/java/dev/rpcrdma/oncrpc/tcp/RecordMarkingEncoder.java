package dev.rpcrdma.oncrpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;
import io.netty.util.internal.ObjectUtil;

/**
 * RFC 5531 §11 record marking: writes each outbound {@link ByteBuf} (one RPC message) as a record of fragments
 * of at most {@code maxFragmentSize} data bytes, the last one flagged. Releases the input (Netty encoder rule).
 */
@ChannelHandler.Sharable
public final class RecordMarkingEncoder extends MessageToByteEncoder<ByteBuf> {

    private final int maxFragmentSize;

    /** An encoder cutting records into fragments of at most {@code maxFragmentSize} bytes. */
    public RecordMarkingEncoder(int maxFragmentSize) {
        super(ByteBuf.class);
        this.maxFragmentSize = ObjectUtil.checkInRange(maxFragmentSize, 1, Integer.MAX_VALUE >>> 1,
                "maxFragmentSize");
    }

    @Override
    protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, ByteBuf msg, boolean preferDirect) {
        int length = msg.readableBytes();
        int fragments = Math.max(1, (length + maxFragmentSize - 1) / maxFragmentSize);
        return preferDirect ? ctx.alloc().ioBuffer(length + 4 * fragments)
                : ctx.alloc().heapBuffer(length + 4 * fragments);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, ByteBuf msg, ByteBuf out) {
        do {
            int n = Math.min(msg.readableBytes(), maxFragmentSize);
            boolean last = n == msg.readableBytes();
            out.writeInt(last ? n | RecordMarkingDecoder.LAST_FRAGMENT : n);
            out.writeBytes(msg, n);
        } while (msg.isReadable());
    }
}
