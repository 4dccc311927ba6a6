package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.SendChain;
import dev.rpcrdma.channel.fabric.SendFlags;
import dev.rpcrdma.channel.fabric.WrOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;

/**
 * One send-queue entry of a {@link SendQueue}: writes an outbound message as a work request and holds what the
 * request uses until it is retired. One per entry, reused.
 */
final class SendQueueEntry {
    /** What an entry carries; the drain marker's failure is expected (it is posted to a QP in error). */
    static final int SEND = 0;
    static final int SEND_WITH_INVALIDATE = 1;
    static final int RDMA_WRITE = 2;
    static final int RDMA_READ = 3;
    static final int BIND_WINDOW = 4;
    static final int DRAIN_MARKER = 5;
    static final int LOCAL_INVALIDATE = 6;
    private static final String[] NAMES = {
        "Send", "Send With Invalidate", "RDMA Write", "RDMA Read", "Bind Memory Window", "drain marker",
        "Local Invalidate"
    };

    int kind;
    int sendSlot = -1;
    RdmaMemory memory;
    RdmaBindWindow bind;
    RdmaLocalInvalidate invalidate;
    /** The message is still in the outbound buffer: retiring this entry completes its promise. */
    boolean held;
    boolean signaled;

    SendQueueEntry reset(int kind) {
        this.kind = kind;
        sendSlot = -1;
        memory = null;
        bind = null;
        invalidate = null;
        held = false;
        signaled = false;
        return this;
    }

    /** What this entry carries, for error messages. */
    String name() {
        return NAMES[kind];
    }

    /**
     * Writes {@code msg} into the work request {@code wr} (begun with {@code wrId} and {@code flags}) and resets this
     * entry to it: a Send inline when it fits ({@link RdmaEndpoint#maxInline}), else copied into a send slot of
     * {@code ep}; an RDMA Read or Write, a Local Invalidate or a Bind as they are.
     */
    void encode(SendChain wr, Object msg, RdmaEndpoint ep, long wrId, int flags) {
        if (msg instanceof ByteBuf || msg instanceof RdmaSend) {
            RdmaSend send = msg instanceof RdmaSend ? (RdmaSend) msg : null;
            ByteBuf content = send != null ? send.content() : (ByteBuf) msg;
            reset(sendOpcode(wr, send));
            int length = content.readableBytes();
            if (length > 0 && !(length <= ep.maxInline && addInline(wr, content, ep.maxSendSge))) {
                wr.restart(wrId, flags);
                sendOpcode(wr, send);
                int slot = ep.allocateSendSlot();
                if (slot < 0) {
                    throw new IllegalStateException("no free send slot although the send queue has room");
                }
                content.getBytes(content.readerIndex(), ep.sendSlab, slot * ep.sendSlotSize, length);
                wr.addSge(ep.sendSlotAddress(slot), length, ep.sendRegion.lkey());
                sendSlot = slot;
            }
        } else if (msg instanceof RdmaOneSidedOperation) {
            RdmaOneSidedOperation a = (RdmaOneSidedOperation) msg;
            boolean write = a instanceof RdmaWrite;
            wr.opcode(write ? WrOpcode.RDMA_WRITE : WrOpcode.RDMA_READ);
            wr.addSge(a.local().address() + a.offset(), a.length(), a.local().lkey());
            wr.remote(a.remoteAddress(), a.rkey());
            reset(write ? RDMA_WRITE : RDMA_READ);
            memory = a.local();
        } else if (msg instanceof RdmaLocalInvalidate) {
            RdmaLocalInvalidate li = (RdmaLocalInvalidate) msg;
            wr.opcode(WrOpcode.LOCAL_INV);
            wr.invalidateRkey(li.rkey());
            reset(LOCAL_INVALIDATE);
            invalidate = li;
        } else {
            RdmaBindWindow b = (RdmaBindWindow) msg;
            wr.opcode(WrOpcode.BIND_MW);
            wr.bind(b.window().window, b.rkey(), b.memory().region(), b.address(),
                    b.length(), b.access());
            reset(BIND_WINDOW);
            memory = b.memory();
            bind = b;
        }
    }

    private static int sendOpcode(SendChain wr, RdmaSend send) {
        if (send != null && send.isInvalidate()) {
            wr.opcode(WrOpcode.SEND_WITH_INV);
            wr.invalidateRkey(send.invalidateRkey());
            return SEND_WITH_INVALIDATE;
        }
        wr.opcode(WrOpcode.SEND);
        return SEND;
    }

    /**
     * Adds the content's components as inline SGEs to {@code wr}; false if a component has no memory address or there
     * are more than {@code maxSge} (what the queue pair was granted) of them.
     */
    private static boolean addInline(SendChain wr, ByteBuf content, int maxSge) {
        int length = content.readableBytes();
        if (content.hasMemoryAddress()) {
            wr.addSge(content.memoryAddress() + content.readerIndex(), length, 0);
        } else if (content instanceof CompositeByteBuf && content.nioBufferCount() <= maxSge) {
            CompositeByteBuf c = (CompositeByteBuf) content;
            int offset = c.readerIndex();
            int end = offset + length;
            while (offset < end) {
                int ci = c.toComponentIndex(offset);
                ByteBuf component = c.internalComponent(ci);
                int componentStart = c.toByteIndex(ci);
                int n = Math.min(end - offset, component.readableBytes() - (offset - componentStart));
                if (!component.hasMemoryAddress() || wr.numSge() == maxSge) {
                    return false;
                }
                if (n > 0) {
                    wr.addSge(component.memoryAddress() + component.readerIndex() + (offset - componentStart), n, 0);
                }
                offset += n;
            }
        } else {
            return false;
        }
        wr.sendFlags(wr.sendFlags() | SendFlags.INLINE);
        return true;
    }
}
