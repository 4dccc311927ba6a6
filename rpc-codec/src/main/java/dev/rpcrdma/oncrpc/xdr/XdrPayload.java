package dev.rpcrdma.oncrpc.xdr;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.Recycler;
import io.netty.util.ReferenceCounted;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.PlatformDependent;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Queue;

/**
 * An outbound XDR stream as {@code segment[0] item[0] segment[1] ... segment[n]}: plain XDR segments and
 * DDP-eligible opaque items (RFC 8166 §3.4), each item's length word the last four bytes of the segment before it.
 * Written whole ({@link #writeInline}) or reduced, without the items' data and pad ({@link #writeReduced}).
 * Reference-counted: whoever is handed a payload releases it, and a payload (with its {@link #writer()} and
 * {@link #ddpItems()}) goes back to a per-thread pool at its last release, so never use it after. Not thread-safe.
 */
public final class XdrPayload extends AbstractReferenceCounted {

    private static final DdpItem[] NO_ITEMS = new DdpItem[0];
    /** Netty threads' payloads: the releasing thread's stack, then Netty's Recycler. */
    private static final LocalPool<XdrPayload> POOL = new LocalPool<>(new Recycler<XdrPayload>() {
        @Override
        protected XdrPayload newObject(Handle<XdrPayload> handle) {
            return new XdrPayload(handle);
        }
    });

    /**
     * Payloads made on threads that are not Netty's (an application thread calling {@code RpcClient.call}), where
     * Netty's Recycler does not pool: a small pool shared by all such threads; such a payload goes back there
     * whichever thread releases it.
     */
    private static final Queue<XdrPayload> SHARED = PlatformDependent.newFixedMpmcQueue(256);
    private static final Recycler.Handle<XdrPayload> TO_SHARED = SHARED::offer;

    /** Null for {@link #EMPTY} (never recycled). */
    private final Recycler.Handle<XdrPayload> handle;
    private ByteBufAllocator alloc;
    /** Reused with this payload, as are the lists and the writer below. */
    private final ArrayList<ByteBuf> segments = new ArrayList<>(2);
    /**
     * DDP-eligible items in stream order: {@code [0, itemCount)}; the slots after them keep the item objects of
     * earlier uses of this payload for {@link #writeDdpOpaque} to reuse. Made on the first item (most payloads have
     * none), as is {@link #ddpItems()}'s view.
     */
    private DdpItem[] items = NO_ITEMS;
    private int itemCount;
    private List<DdpItem> itemsView;
    private final XdrWriter writer = new XdrWriter(Unpooled.EMPTY_BUFFER, this);

    /** The shared empty payload, see {@link #empty()}. */
    private static final XdrPayload EMPTY = new XdrPayload(null);

    static {
        EMPTY.segments.add(Unpooled.EMPTY_BUFFER);
    }

    private XdrPayload(Recycler.Handle<XdrPayload> handle) {
        this.handle = handle;
    }

    /** A payload from the pool whose only segment is {@code first}. */
    private static XdrPayload pooled(ByteBufAllocator alloc, ByteBuf first) {
        XdrPayload p;
        if (FastThreadLocalThread.currentThreadWillCleanupFastThreadLocals()) {
            p = POOL.get();
        } else {
            p = SHARED.poll();
            if (p == null) {
                p = new XdrPayload(TO_SHARED);
            }
        }
        p.setRefCnt(1);
        p.alloc = alloc;
        p.segments.add(first);
        p.writer.target(first);
        return p;
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
        // Segments are allocated on first write: empty payloads (void results) cost no buffer.
        return pooled(ObjectUtil.checkNotNull(alloc, "alloc"), Unpooled.EMPTY_BUFFER);
    }

    /** A payload of one plain segment holding the readable bytes of {@code xdr}; takes ownership of it. */
    public static XdrPayload wrap(ByteBufAllocator alloc, ByteBuf xdr) {
        return pooled(ObjectUtil.checkNotNull(alloc, "alloc"), ObjectUtil.checkNotNull(xdr, "xdr"));
    }

    /**
     * A payload over an already-encoded XDR stream whose DDP-eligible items were located in it (by an upper-layer
     * binding, RFC 8267): no byte is copied; the segments and items are slices of {@code xdr}. {@code items} holds
     * {@code count} pairs {@code (position, length)}: the item's data starts {@code position} bytes after
     * {@code xdr}'s reader index, right after its XDR length word, which must say {@code length}; items are in stream
     * order, do not overlap (data and pad), and lie within the readable bytes. Takes ownership of {@code xdr}, also
     * when the items are refused.
     *
     * @throws XdrException if an item breaks those rules (a binding fed lying XDR): nothing is kept
     */
    public static XdrPayload slices(ByteBufAllocator alloc, ByteBuf xdr, int[] items, int count)
            throws XdrException {
        ObjectUtil.checkNotNull(alloc, "alloc");
        ObjectUtil.checkNotNull(xdr, "xdr");
        ObjectUtil.checkNotNull(items, "items");
        int base = xdr.readerIndex();
        int end = xdr.readableBytes();
        try {
            if (count < 0 || 2L * count > items.length) {
                throw new XdrException("item count " + count + " outside 0.." + items.length / 2);
            }
            long next = 0;
            for (int i = 0; i < count; i++) {
                int position = items[2 * i];
                int length = items[2 * i + 1];
                if (position < next + Xdr.UNIT || length < 0
                        || position + (long) length + Xdr.pad(length) > end) {
                    throw new XdrException("DDP-eligible item " + i + " (position " + position + ", length " + length
                            + ") is out of order or outside the " + end + "-byte stream");
                }
                if (xdr.getInt(base + position - Xdr.UNIT) != length) {
                    throw new XdrException("DDP-eligible item " + i + " at position " + position
                            + ": its length word says " + Integer.toUnsignedString(xdr.getInt(base + position - 4))
                            + ", not " + length);
                }
                next = position + (long) length + Xdr.pad(length);
            }
        } catch (XdrException e) {
            xdr.release();
            throw e;
        }
        if (count == 0) {
            return wrap(alloc, xdr);
        }
        XdrPayload p = pooled(alloc, Unpooled.EMPTY_BUFFER);
        p.segments.clear();
        int from = 0;
        for (int i = 0; i < count; i++) {
            int position = items[2 * i];
            int length = items[2 * i + 1];
            p.segments.add(xdr.retainedSlice(base + from, position - from));
            p.addItem(position, xdr.retainedSlice(base + position, length));
            from = position + length + Xdr.pad(length);
        }
        p.segments.add(xdr.retainedSlice(base + from, end - from));
        p.writer.target(Unpooled.EMPTY_BUFFER);
        xdr.release();
        return p;
    }

    /**
     * The concatenation {@code head || tail}, with the tail's item positions shifted by the head's inline length.
     * Takes ownership of both (they must not be used afterwards); the result owns all their buffers.
     */
    public static XdrPayload concat(XdrPayload head, XdrPayload tail) {
        XdrPayload result = pooled(head.alloc, Unpooled.EMPTY_BUFFER);
        result.segments.clear();
        int lastOfHead = head.segments.size() - 1;
        for (int i = 0; i < lastOfHead; i++) {
            result.segments.add(head.segments.get(i).retain());
        }
        // The head's last segment and the tail's first segment are adjacent plain XDR: keep both as one "gap".
        ByteBuf gapHead = head.segments.get(lastOfHead).retain();
        ByteBuf gapTail = tail.segments.get(0).retain();
        result.segments.add(gapHead.alloc().compositeBuffer(2).addComponents(true, gapHead, gapTail));
        for (int i = 1; i < tail.segments.size(); i++) {
            result.segments.add(tail.segments.get(i).retain());
        }
        for (int i = 0; i < head.itemCount; i++) {
            DdpItem item = head.items[i];
            result.addItem(item.position(), item.data().retain());
        }
        int shift = head.inlineLength();
        for (int i = 0; i < tail.itemCount; i++) {
            DdpItem item = tail.items[i];
            result.addItem(item.position() + shift, item.data().retain());
        }
        result.writer.target(result.segments.get(result.segments.size() - 1));
        head.release();
        tail.release();
        return result;
    }

    private void addItem(int position, ByteBuf data) {
        if (itemCount == items.length) {
            items = Arrays.copyOf(items, Math.max(2, 2 * itemCount));
        }
        DdpItem spare = items[itemCount];
        items[itemCount++] = spare == null ? new DdpItem(position, data) : spare.set(position, data);
    }

    /** Writer for plain XDR items, appending after everything written so far. */
    public XdrWriter writer() {
        return writer;
    }

    /**
     * Appends a DDP-eligible variable-length opaque (RFC 8166 §3.4.1): its length word goes into the current
     * segment; its data becomes an item and is not copied. Takes ownership of {@code data} (its readable bytes). Not
     * allowed once the payload was handed to a transport.
     */
    public XdrPayload writeDdpOpaque(ByteBuf data) {
        ObjectUtil.checkNotNull(data, "data");
        writableSegment().writeInt(data.readableBytes());
        // The item's data starts right after its length word (RFC 8166 §3.4.5).
        addItem(inlineLength(), data);
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
        for (int i = 0; i < itemCount; i++) {
            DdpItem item = items[i];
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
        List<DdpItem> view = itemsView;
        if (view == null) {
            view = new AbstractList<DdpItem>() {
                @Override
                public DdpItem get(int index) {
                    return items[Objects.checkIndex(index, itemCount)];
                }

                @Override
                public int size() {
                    return itemCount;
                }
            };
            itemsView = view;
        }
        return view;
    }

    /** Writes the ordinary (fully-inline) XDR encoding into {@code out}. This payload is not consumed. */
    public void writeInline(ByteBuf out) {
        for (int i = 0; i < segments.size(); i++) {
            ByteBuf s = segments.get(i);
            if (s.isReadable()) {
                ByteBufCopy.append(s, s.readerIndex(), s.readableBytes(), out);
            }
            if (i < itemCount) {
                DdpItem item = items[i];
                ByteBufCopy.append(item.data(), item.data().readerIndex(), item.length(), out);
                out.writeZero(item.padLength());
            }
        }
    }

    /**
     * Writes the reduced stream (RPC-over-RDMA chunk reduction, RFC 8166 §3.4.5): every segment, so the items' length
     * words stay, but not the data and pad of any item (§3.4.6); each item travels in a chunk at its
     * {@link DdpItem#position()}.
     */
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
        for (int i = 0; i < itemCount; i++) {
            DdpItem item = items[i];
            item.data().release();
            item.set(0, null); // kept in its slot for the next use
        }
        itemCount = 0;
        segments.clear();
        writer.target(Unpooled.EMPTY_BUFFER);
        alloc = null;
        POOL.recycle(this, handle);
    }

    @Override
    public String toString() {
        return "XdrPayload(inline=" + inlineLength() + ", reduced=" + reducedLength() + ", items=" + ddpItems() + ')';
    }
}
