package dev.rpcrdma.handlers;

import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.handlers.binding.UpperLayerBinding;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.internal.ObjectUtil;

/**
 * How the byte framing carries whole RPC messages as {@link ByteBuf}s between an RPC-over-RDMA connection and a
 * pipeline built for TCP: the upper-layer binding that locates DDP-eligible items (RFC 8267), and whether outbound
 * messages arrive with RFC 5531 §11 record marks (the TCP framing a pipeline's last stage, or its direct channel
 * writes, add) that must come off. Inbound messages never carry record marks: RPC-over-RDMA has none (RFC 8166
 * §4.1). Immutable.
 */
public final class ByteFraming {

    /** RFC 5531 §11: the last-fragment bit of a record mark. */
    private static final int LAST_FRAGMENT = 0x8000_0000;

    /** No binding, outbound messages without record marks. */
    public static final ByteFraming DEFAULT = new ByteFraming(UpperLayerBinding.NONE, false, false);

    private final UpperLayerBinding binding;
    private final boolean recordMarked;
    private final boolean copyInbound;

    private ByteFraming(UpperLayerBinding binding, boolean recordMarked, boolean copyInbound) {
        this.binding = ObjectUtil.checkNotNull(binding, "binding");
        this.recordMarked = recordMarked;
        this.copyInbound = copyInbound;
    }

    /** With this upper-layer binding (e.g. {@link UpperLayerBinding#nfs()}). */
    public ByteFraming withBinding(UpperLayerBinding binding) {
        return new ByteFraming(binding, recordMarked, copyInbound);
    }

    /**
     * Whether inbound messages are handed up as copies on the Java heap ({@code true}: one copy per message, the
     * receive buffer goes back at once, and a stack that never releases what it reads leaks nothing but garbage the
     * GC collects) or as slices of the registered receive or reassembly memory ({@code false}, the default: no
     * copy; the stack must release each message, as Netty's reference counting asks). Hadoop's portmap handler,
     * for one, never releases its messages.
     */
    public ByteFraming withCopiedInbound(boolean copyInbound) {
        return new ByteFraming(binding, recordMarked, copyInbound);
    }

    public boolean copiedInbound() {
        return copyInbound;
    }

    /**
     * The inbound message in {@code stream} (owned; its readable bytes are one whole RPC message) as the buffer to
     * hand up: at reader index 0, a copy on the heap when {@link #copiedInbound()}, else {@code stream} or a slice.
     */
    public ByteBuf handUp(ByteBuf stream) {
        if (copyInbound) {
            byte[] bytes = new byte[stream.readableBytes()]; // bounded by the largest message accepted
            stream.getBytes(stream.readerIndex(), bytes);
            stream.release();
            return Unpooled.wrappedBuffer(bytes);
        }
        if (stream.readerIndex() == 0) {
            return stream;
        }
        // A plain RDMA_MSG call's receive buffer past its 28-byte header: the buffer's reusable view, no allocation.
        ByteBuf message = RdmaReceive.retainedReadable(stream);
        stream.release();
        return message;
    }

    /**
     * With outbound messages that carry TCP record marks ({@code true}: each written {@code ByteBuf} is one record,
     * one or more fragments, and the marks are taken off) or not ({@code false}: each is exactly one RPC message).
     */
    public ByteFraming withRecordMarks(boolean recordMarked) {
        return new ByteFraming(binding, recordMarked, copyInbound);
    }

    public UpperLayerBinding binding() {
        return binding;
    }

    public boolean recordMarked() {
        return recordMarked;
    }

    /**
     * The RPC message in an outbound {@code msg} (ownership passes to the result; on failure {@code msg} is
     * released): {@code msg} itself, its reader index past a single record mark, or its fragments joined.
     *
     * @throws IllegalArgumentException the record marks do not describe {@code msg}'s bytes exactly
     */
    public ByteBuf unframe(ByteBuf msg) {
        if (!recordMarked) {
            return msg;
        }
        int start = msg.readerIndex();
        int end = msg.writerIndex();
        int fragments = 0;
        long total = 0;
        boolean last = false;
        for (int i = start; !last; fragments++) {
            if (end - i < 4) {
                msg.release();
                throw new IllegalArgumentException("a record-marked message of " + (end - start)
                        + " bytes ends inside or before a record mark (RFC 5531 §11)");
            }
            int mark = msg.getInt(i);
            last = (mark & LAST_FRAGMENT) != 0;
            int length = mark & ~LAST_FRAGMENT;
            if (length > end - i - 4) {
                msg.release();
                throw new IllegalArgumentException("a record mark says " + length + " bytes, " + (end - i - 4)
                        + " follow (RFC 5531 §11)");
            }
            i += 4 + length;
            total += length;
            if (last && i != end) {
                msg.release();
                throw new IllegalArgumentException((end - i) + " bytes follow the last fragment of a record");
            }
        }
        if (fragments == 1) {
            msg.skipBytes(4);
            return msg;
        }
        ByteBuf joined = msg.alloc().buffer((int) total);
        for (int i = start; i < end; ) {
            int length = msg.getInt(i) & ~LAST_FRAGMENT;
            joined.writeBytes(msg, i + 4, length);
            i += 4 + length;
        }
        msg.release();
        return joined;
    }

    @Override
    public String toString() {
        return "ByteFraming(binding=" + binding.name() + ", recordMarked=" + recordMarked + ", copyInbound="
                + copyInbound + ')';
    }
}
