package dev.rpcrdma.channel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * What {@link RdmaChannel} accepts for writing ({@code filterOutboundMessage}): a Send ({@link ByteBuf} or
 * {@link RdmaSend}) no larger than {@code MAX_SEND_SIZE}; an {@link RdmaRead} or {@link RdmaWrite} from memory
 * registered on the channel; an {@link RdmaBindWindow} of the channel's window over its memory; an
 * {@link RdmaLocalInvalidate} of its window where the device takes one. Anything else fails the write.
 */
final class OutboundMessages {
    private OutboundMessages() {
    }

    /** {@code msg} as it is to be queued (a cancelled write's marker replaced), or an exception for the write. */
    static Object check(RdmaChannel channel, Object msg, int maxSendSize) throws RdmaException {
        if (msg == Unpooled.EMPTY_BUFFER) {
            // ChannelOutboundBuffer marks cancelled writes with this very instance; keep it unambiguous.
            return Unpooled.buffer(0, 1); // (buffer(0, 0) would be EMPTY_BUFFER again)
        }
        if (msg instanceof ByteBuf || msg instanceof RdmaSend) {
            ByteBuf content = msg instanceof ByteBuf ? (ByteBuf) msg : ((RdmaSend) msg).content();
            if (content.readableBytes() > maxSendSize) {
                throw new RdmaException("a Send of " + content.readableBytes() + " bytes exceeds MAX_SEND_SIZE "
                        + maxSendSize);
            }
            return msg;
        }
        if (msg instanceof RdmaOneSidedOperation) {
            RdmaMemory m = ((RdmaOneSidedOperation) msg).local();
            if (m.channel() != channel || !m.isRegistered()) {
                throw new IllegalArgumentException("local memory is not registered on this channel");
            }
            return msg;
        }
        if (msg instanceof RdmaLocalInvalidate) {
            if (((RdmaLocalInvalidate) msg).window().channel() != channel) {
                throw new IllegalArgumentException("the window must belong to this channel");
            }
            if (!channel.localInvalidateSupported()) {
                throw new UnsupportedOperationException("this device does not take IBV_WR_LOCAL_INV of a type-2 "
                        + "window: close the window instead");
            }
            return msg;
        }
        if (msg instanceof RdmaBindWindow) {
            RdmaBindWindow b = (RdmaBindWindow) msg;
            if (b.window().channel() != channel || b.memory().channel() != channel || !b.memory().isRegistered()) {
                throw new IllegalArgumentException("window and memory must belong to this channel");
            }
            return msg;
        }
        throw new UnsupportedOperationException("unsupported message type: " + msg.getClass().getName()
                + " (expected ByteBuf, RdmaSend, RdmaWrite, RdmaRead, RdmaBindWindow or RdmaLocalInvalidate)");
    }
}
