package dev.rpcrdma.oncrpc.xdr;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCounted;
import io.netty.util.internal.ObjectUtil;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An outbound XDR stream as an ordered sequence of plain XDR segments and DDP-eligible opaque items
 * (RFC 8166 §3.4).
 *
 * <p>The layout is always {@code segment[0] item[0] segment[1] item[1] ... segment[n]}: the length word of
 * {@code item[i]} is the last four bytes of {@code segment[i]}, and {@code segment[i+1]} starts with whatever
 * follows the item's pad. Hence:
 * <ul>
 *   <li>{@link #writeInline(ByteBuf)} (TCP, or an RDMA message that fits inline) writes every segment, each
 *       item's data and its pad: the ordinary XDR encoding;</li>
 *   <li>{@link #writeReduced(ByteBuf)} (RPC-over-RDMA "chunk reduction", RFC 8166 §3.4.5) writes only the
 *       segments: the length words stay, the data and pad of every item are left out (§3.4.6); each item then
 *       travels in a chunk whose XDR position is {@link DdpItem#position()}.</li>
 * </ul>
 *
 * <p>Build a payload with {@link #newPayload(ByteBufAllocator)}: write plain items through {@link #writer()}
 * and DDP-eligible opaques with {@link #writeDdpOpaque(ByteBuf)} (zero-copy: the payload takes ownership of the
 * buffer). Appending after the payload was handed to a transport is not allowed.
 *
 * <p>Ownership: reference-counted. The payload owns its segments and item buffers and releases them when its
 * count reaches zero. Whoever is handed a payload (a transport, {@code OutboundRpcMessage}) releases it.
 * Not thread-safe while being built.
 */
public final class XdrPayload extends AbstractReferenceCounted {

    private final ByteBufAllocator alloc;
    private final List<ByteBuf> segments;
    /** DDP-eligible items; the shared empty list until the first one (most payloads have none). */
    private List<DdpItem> items;
    private final XdrWriter writer;

    /** The shared empty payload, see {@link #empty()}. */
    private static final XdrPayload EMPTY = new XdrPayload(null, List.of(Unpooled.EMPTY_BUFFER),
            Collections.emptyList());

    private XdrPayload(ByteBufAllocator alloc, List<ByteBuf> segments, List<DdpItem> items) {
        this.alloc = alloc;
        this.segments = segments;
        this.items = items;
        this.writer = new XdrWriter(segments.get(segments.size() - 1), this);
    }

    /**
     * The empty payload (void arguments or results, e.g. NULL's), shared: nothing can be written to it (writing
     * through {@link #writer()} or {@link #writeDdpOpaque} throws {@link IllegalStateException}), and retaining or
     * releasing it does nothing (its count stays 1), so handing it over like any payload costs no allocation.
     */
    public static XdrPayload empty() {
        return EMPTY;
    }

    /** A new, empty payload whose segments are allocated from {@code alloc}. */
    public static XdrPayload newPayload(ByteBufAllocator alloc) {
        ObjectUtil.checkNotNull(alloc, "alloc");
        List<ByteBuf> segments = new ArrayList<>(2);
        // Segments are allocated on first write: empty payloads (void results) cost no buffer.
        segments.add(Unpooled.EMPTY_BUFFER);
        return new XdrPayload(alloc, segments, Collections.emptyList());
    }

    /** A payload of one plain segment holding the readable bytes of {@code xdr}; takes ownership of it. */
    public static XdrPayload wrap(ByteBufAllocator alloc, ByteBuf xdr) {
        ObjectUtil.checkNotNull(alloc, "alloc");
        List<ByteBuf> segments = new ArrayList<>(2);
        segments.add(xdr);
        return new XdrPayload(alloc, segments, Collections.emptyList());
    }

    /**
     * The concatenation {@code head || tail}, with the tail's item positions shifted by the head's inline length.
     * Takes ownership of both (they must not be used afterwards); the result owns all their buffers.
     */
    public static XdrPayload concat(XdrPayload head, XdrPayload tail) {
        List<ByteBuf> segments = new ArrayList<>(head.segments.size() + tail.segments.size());
        List<DdpItem> items = new ArrayList<>(head.items.size() + tail.items.size());
        for (ByteBuf s : head.segments) {
            segments.add(s.retain());
        }
        items.addAll(head.items);
        for (DdpItem item : head.items) {
            item.data().retain();
        }
        // The head's last segment and the tail's first segment are adjacent plain XDR: keep both as one "gap".
        int shift = head.inlineLength();
        ByteBuf lastOfHead = segments.remove(segments.size() - 1);
        ByteBuf firstOfTail = tail.segments.get(0).retain();
        segments.add(lastOfHead.alloc().compositeBuffer(2).addComponents(true, lastOfHead, firstOfTail));
        for (int i = 1; i < tail.segments.size(); i++) {
            segments.add(tail.segments.get(i).retain());
        }
        for (DdpItem item : tail.items) {
            item.data().retain();
            items.add(item.shift(shift));
        }
        head.release();
        tail.release();
        return new XdrPayload(head.alloc, segments, items);
    }

    /** Writer for plain XDR items, appending after everything written so far. */
    public XdrWriter writer() {
        return writer;
    }

    /**
     * Appends a DDP-eligible variable-length opaque (RFC 8166 §3.4.1): its length word goes into the current
     * segment; its data becomes an item and is not copied. Takes ownership of {@code data} (its readable bytes).
     */
    public XdrPayload writeDdpOpaque(ByteBuf data) {
        ObjectUtil.checkNotNull(data, "data");
        writableSegment().writeInt(data.readableBytes());
        // The item's data starts right after its length word (RFC 8166 §3.4.5).
        DdpItem item = new DdpItem(inlineLength(), data);
        if (items.isEmpty()) {
            items = new ArrayList<>(2);
        }
        items.add(item);
        segments.add(Unpooled.EMPTY_BUFFER);
        writer.target(Unpooled.EMPTY_BUFFER);
        return this;
    }

    /** The current (last) segment, allocated if it is still the empty placeholder. */
    ByteBuf writableSegment() {
        if (this == EMPTY) {
            throw new IllegalStateException("XdrPayload.empty() is shared and cannot be written to; use newPayload");
        }
        int last = segments.size() - 1;
        ByteBuf current = segments.get(last);
        if (current == Unpooled.EMPTY_BUFFER) {
            current = alloc.buffer();
            segments.set(last, current);
            writer.target(current);
        }
        return current;
    }

    /** Length of the fully-inline XDR encoding (segments, item data and pads). */
    public int inlineLength() {
        int length = reducedLength();
        for (int i = 0; i < items.size(); i++) {
            DdpItem item = items.get(i);
            length += item.length() + item.padLength();
        }
        return length;
    }

    /** Length of the reduced stream: the inline length minus every item's data and pad. */
    public int reducedLength() {
        int length = 0;
        for (int i = 0; i < segments.size(); i++) {
            length += segments.get(i).readableBytes();
        }
        return length;
    }

    /** The DDP-eligible items in stream order (unmodifiable). */
    public List<DdpItem> ddpItems() {
        return Collections.unmodifiableList(items);
    }

    /** Writes the ordinary (fully-inline) XDR encoding into {@code out}. This payload is not consumed. */
    public void writeInline(ByteBuf out) {
        for (int i = 0; i < segments.size(); i++) {
            ByteBuf s = segments.get(i);
            if (s.isReadable()) {
                ByteBufCopy.append(s, s.readerIndex(), s.readableBytes(), out);
            }
            if (i < items.size()) {
                DdpItem item = items.get(i);
                ByteBufCopy.append(item.data(), item.data().readerIndex(), item.length(), out);
                out.writeZero(item.padLength());
            }
        }
    }

    /** Writes the reduced stream (RFC 8166 §3.4.5): everything except each item's data and pad. */
    public void writeReduced(ByteBuf out) {
        for (int i = 0; i < segments.size(); i++) {
            ByteBuf s = segments.get(i);
            if (s.isReadable()) {
                ByteBufCopy.append(s, s.readerIndex(), s.readableBytes(), out);
            }
        }
    }

    /** A new buffer holding the fully-inline encoding; the caller releases it. */
    public ByteBuf toInlineBuffer(ByteBufAllocator alloc) {
        ByteBuf out = alloc.buffer(inlineLength());
        writeInline(out);
        return out;
    }

    @Override
    public XdrPayload retain() {
        if (this != EMPTY) {
            super.retain();
        }
        return this;
    }

    @Override
    public XdrPayload retain(int increment) {
        if (this != EMPTY) {
            super.retain(increment);
        }
        return this;
    }

    @Override
    public boolean release() {
        return this != EMPTY && super.release();
    }

    @Override
    public boolean release(int decrement) {
        return this != EMPTY && super.release(decrement);
    }

    @Override
    public XdrPayload touch() {
        return this;
    }

    @Override
    public ReferenceCounted touch(Object hint) {
        return this;
    }

    @Override
    protected void deallocate() {
        for (int i = 0; i < segments.size(); i++) {
            segments.get(i).release();
        }
        for (int i = 0; i < items.size(); i++) {
            items.get(i).data().release();
        }
    }

    @Override
    public String toString() {
        return "XdrPayload(inline=" + inlineLength() + ", reduced=" + reducedLength() + ", items=" + items + ')';
    }
}
