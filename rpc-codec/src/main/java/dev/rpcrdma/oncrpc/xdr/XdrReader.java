package dev.rpcrdma.oncrpc.xdr;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.util.internal.ObjectUtil;

import java.nio.charset.StandardCharsets;
import java.util.Deque;

/**
 * Reads XDR (RFC 4506) items from a {@link ByteBuf}. Every variable-length item's declared length is checked against
 * the caller's maximum and the bytes that remain before anything is allocated or sliced (the CVE-2017-8779
 * "rpcbomb" class); every failure is an {@link XdrException}. Over RDMA the data of DDP-eligible items may have been
 * placed out of band ({@link #readDdpOpaque(int)}). The reader owns neither the inline nor the placed buffers;
 * buffers it returns are the caller's to release. Not thread-safe.
 */
public final class XdrReader {

    /** What a zero-length opaque reads as (shared: a zero-length array has no state). */
    private static final byte[] EMPTY = new byte[0];
    /** Kinds of variable-length items, for error messages built only on failure. */
    private static final int OPAQUE = 0;
    private static final int STRING = 1;
    private static final int ARRAY = 2;
    private static final int DDP_OPAQUE = 3;

    private ByteBuf in;
    /** Placed DDP data; null when there is none (the inline-only, TCP case costs no deque). */
    private Deque<ByteBuf> placed;

    /** A reader over inline XDR only (e.g. a TCP record). */
    public XdrReader(ByteBuf in) {
        this.in = ObjectUtil.checkNotNull(in, "in");
        this.placed = null;
    }

    /**
     * A reader over inline XDR plus placed DDP data: one slot per DDP-eligible item, in the order the items appear
     * in the stream, an empty buffer for an item that was not placed (see {@link #readDdpOpaque(int)}). The deque
     * is consumed by {@link #readDdpOpaque(int)}.
     */
    public XdrReader(ByteBuf in, Deque<ByteBuf> placed) {
        this.in = ObjectUtil.checkNotNull(in, "in");
        this.placed = ObjectUtil.checkNotNull(placed, "placed");
    }

    /**
     * Points this reader at other buffers, as if newly made ({@code placed} null: inline only); for pooled
     * messages that reuse their reader. Nobody may be reading it.
     */
    public XdrReader reset(ByteBuf in, Deque<ByteBuf> placed) {
        this.in = ObjectUtil.checkNotNull(in, "in");
        this.placed = placed;
        return this;
    }

    /** The inline buffer (not a copy: reading it moves this reader). */
    public ByteBuf buffer() {
        return in;
    }

    /** Inline bytes not yet read. */
    public int readableBytes() {
        return in.readableBytes();
    }

    /** Bytes of placed DDP data not yet taken (0 without placed data). */
    public long placedBytes() {
        if (placed == null) {
            return 0;
        }
        long n = 0;
        for (ByteBuf b : placed) {
            n += b.readableBytes();
        }
        return n;
    }

    /** Placed DDP buffers not yet taken by {@link #readDdpOpaque(int)}. */
    public int pendingPlacedItems() {
        return placed == null ? 0 : placed.size();
    }

    private void need(long bytes, String what) throws XdrException {
        if (bytes > in.readableBytes()) {
            throw truncated(what, bytes);
        }
    }

    private XdrException truncated(String what, long bytes) {
        return new XdrException("truncated XDR: " + what + " needs " + bytes + " bytes, " + in.readableBytes()
                + " remain");
    }

    private static String describe(int kind, long max) {
        switch (kind) {
            case OPAQUE:
                return "opaque<" + max + ">";
            case STRING:
                return "string<" + max + ">";
            case ARRAY:
                return "array<" + max + ">";
            default:
                return "DDP opaque<" + max + ">";
        }
    }

    /** RFC 4506 §4.1 int. */
    public int readInt() throws XdrException {
        need(4, "int");
        return in.readInt();
    }

    /** RFC 4506 §4.2 unsigned int, as a non-negative long. */
    public long readUnsignedInt() throws XdrException {
        need(4, "unsigned int");
        return in.readUnsignedInt();
    }

    /** RFC 4506 §4.5 hyper (also used for unsigned hyper: the caller interprets the 64 bits). */
    public long readHyper() throws XdrException {
        need(8, "hyper");
        return in.readLong();
    }

    /** RFC 4506 §4.4 bool: only 0 and 1 are valid. */
    public boolean readBool() throws XdrException {
        int v = readInt();
        if (v == 0) {
            return false;
        }
        if (v == 1) {
            return true;
        }
        throw new XdrException("invalid XDR bool " + v);
    }

    /** RFC 4506 §4.3 enum: a signed int; the caller maps it to its constants. */
    public int readEnum() throws XdrException {
        return readInt();
    }

    /**
     * Reads a length word and checks it against {@code max} and against the remaining inline bytes (data plus pad).
     * Used by every variable-length item.
     */
    private int readLength(int max, int kind) throws XdrException {
        long length = readUnsignedInt();
        checkMax(length, max, kind);
        long padded = Xdr.padded(length);
        if (padded > in.readableBytes()) {
            throw truncated(describe(kind, max) + " of declared length " + length, padded);
        }
        return (int) length;
    }

    private static void checkMax(long length, int max, int kind) throws XdrException {
        if (length > max) {
            throw new XdrException(describe(kind, max) + " declares length " + length + ", over its bound " + max);
        }
    }

    private void skipPad(int length) {
        in.skipBytes(Xdr.pad(length));
    }

    /** RFC 4506 §4.9 fixed-length opaque of a schema-given length, copied. */
    public byte[] readFixedOpaque(int length) throws XdrException {
        ObjectUtil.checkPositiveOrZero(length, "length");
        if (Xdr.padded(length) > in.readableBytes()) {
            throw truncated("opaque[" + length + "]", Xdr.padded(length));
        }
        byte[] data = new byte[length];
        in.readBytes(data);
        skipPad(length);
        return data;
    }

    /**
     * RFC 4506 §4.10 variable-length opaque of at most {@code max} bytes, copied (use for small items). A
     * zero-length opaque returns one shared empty array. Reads a DDP-eligible item that was placed out of band too
     * (see {@link #readDdpOpaque(int)}): code reads a result the same way whatever carried it.
     */
    public byte[] readOpaque(int max) throws XdrException {
        int length = readOpaqueLength(max);
        if (length == 0) {
            return EMPTY;
        }
        byte[] data = new byte[length];
        ByteBuf placedData = takePlaced(length);
        if (placedData != null) {
            placedData.readBytes(data);
            placedData.release();
            return data;
        }
        in.readBytes(data);
        skipPad(length);
        return data;
    }

    /**
     * RFC 4506 §4.10 variable-length opaque of at most {@code max} bytes, as a zero-copy retained slice of the
     * inline buffer (or the placed buffer of a DDP-eligible item placed out of band). The caller releases it.
     */
    public ByteBuf readOpaqueSlice(int max) throws XdrException {
        int length = readOpaqueLength(max);
        ByteBuf placedData = takePlaced(length);
        if (placedData != null) {
            return placedData;
        }
        return sliceInline(length);
    }

    /** Skips a variable-length opaque of at most {@code max} bytes (inline or placed). */
    public void skipOpaque(int max) throws XdrException {
        int length = readOpaqueLength(max);
        ByteBuf placedData = takePlaced(length);
        if (placedData != null) {
            placedData.release();
            return;
        }
        in.skipBytes(length);
        skipPad(length);
    }

    /**
     * The length word of a plain opaque: checked against {@code max}, and against the inline bytes unless the next
     * placed item has exactly this length (its data is then out of band).
     */
    private int readOpaqueLength(int max) throws XdrException {
        if (placed == null || placed.isEmpty()) {
            return readLength(max, OPAQUE);
        }
        long length = readUnsignedInt();
        checkMax(length, max, OPAQUE);
        if (length > 0 && nextPlacedLength() == length) {
            return (int) length;
        }
        long padded = Xdr.padded(length);
        if (padded > in.readableBytes()) {
            throw truncated(describe(OPAQUE, max) + " of declared length " + length, padded);
        }
        return (int) length;
    }

    /** Readable bytes of the first non-empty placed item, or -1. */
    private long nextPlacedLength() {
        for (ByteBuf b : placed) {
            if (b.isReadable()) {
                return b.readableBytes();
            }
        }
        return -1;
    }

    /**
     * The placed data of a plain-read opaque of {@code length} bytes, or null if it is inline: a DDP-eligible item
     * read with {@link #readOpaque(int)} instead of {@link #readDdpOpaque(int)} takes the first non-empty placed
     * item when that has exactly the declared length (RFC 8166 §3.4.6: a placed item's length word stays inline,
     * its data does not); slots of DDP-eligible items that came back inline before it are dropped.
     */
    private ByteBuf takePlaced(int length) {
        if (placed == null || length == 0 || nextPlacedLength() != length) {
            return null;
        }
        while (!placed.peekFirst().isReadable()) {
            placed.pollFirst().release();
        }
        return placed.pollFirst();
    }

    /** RFC 4506 §4.11 string of at most {@code max} bytes, decoded as UTF-8 (ASCII is a subset). */
    public String readString(int max) throws XdrException {
        int length = readLength(max, STRING);
        String s = in.toString(in.readerIndex(), length, StandardCharsets.UTF_8);
        in.skipBytes(length);
        skipPad(length);
        return s;
    }

    /**
     * RFC 4506 §4.13 variable-length array header: reads the element count and checks it against {@code max}
     * and against the remaining bytes, given that each element occupies at least {@code minElementSize} bytes
     * (4 for any XDR item). The caller then reads the elements.
     */
    public int readArrayLength(int max, int minElementSize) throws XdrException {
        ObjectUtil.checkPositive(minElementSize, "minElementSize");
        long count = readUnsignedInt();
        checkMax(count, max, ARRAY);
        if (count * minElementSize > in.readableBytes()) {
            throw truncated("array of " + count + " elements", count * minElementSize);
        }
        return (int) count;
    }

    /**
     * RFC 8166 §3.4: reads a DDP-eligible variable-length opaque of at most {@code max} bytes. The length word
     * is always inline. Each call takes the next <em>placement slot</em>, if any: a non-empty placed buffer is the
     * item's data (its length must match the length word; no pad follows inline, RFC 8166 §3.4.6); an empty placed
     * buffer means nothing was placed for this item and its data and pad are inline; with no slot left the item is
     * inline too. Returns a buffer the caller releases (a placed buffer's ownership passes to the caller).
     *
     * <p>Slots are matched to DDP-eligible items by position, as Write chunks are to result items (RFC 8166
     * §4.3.2.1): an RDMA transport passes one slot per returned Write chunk, in Write list order, empty for a chunk
     * returned empty or unused (zero length: RFC 8166 §3.4.6, §4.3.2.2, §4.3.2.3), so the item that chunk stood for
     * is read inline and the following items still meet their own chunks.
     *
     * <p>The plain opaque reads ({@link #readOpaque(int)}, {@link #readOpaqueSlice(int)}, {@link #skipOpaque(int)})
     * take the next placed buffer too when its length is the one declared, so code written for TCP reads an RDMA reply
     * unchanged; only an earlier, not DDP-eligible opaque of exactly the placed item's length would be mistaken for
     * it, which this method (strictly positional) never does. Over TCP nothing is placed.
     */
    public ByteBuf readDdpOpaque(int max) throws XdrException {
        ByteBuf data = placed == null ? null : placed.peekFirst();
        if (data == null) {
            return inlineSlice(max);
        }
        if (!data.isReadable()) {
            // Nothing placed for this item: it is inline (a zero-length item reads the same either way).
            placed.pollFirst().release();
            return inlineSlice(max);
        }
        long length = readUnsignedInt();
        checkMax(length, max, DDP_OPAQUE);
        if (length != data.readableBytes()) {
            throw new XdrException("DDP opaque declares length " + length + " but " + data.readableBytes()
                    + " bytes were placed");
        }
        return placed.pollFirst();
    }

    /**
     * An opaque whose data is inline, as a retained slice. In a composite stream (an RDMA responder's call with the
     * Read chunks' data inserted, RFC 8166 §3.4.5) data lying within one component is sliced from that component:
     * the caller gets the pulled buffer itself (e.g. registered memory it can write back out without a copy), not a
     * view through the composite.
     */
    private ByteBuf inlineSlice(int max) throws XdrException {
        return sliceInline(readLength(max, OPAQUE));
    }

    /** The next {@code length} inline bytes as a retained slice (see {@link #inlineSlice}), then their pad. */
    private ByteBuf sliceInline(int length) throws XdrException {
        ByteBuf data = in instanceof CompositeByteBuf ? componentSlice((CompositeByteBuf) in, length) : null;
        if (data == null) {
            data = RetainedSlice.readRetainedSlice(in, length);
        }
        skipPad(length);
        return data;
    }

    /** A retained slice of the one component holding the next {@code length} bytes, or null if they span more. */
    private static ByteBuf componentSlice(CompositeByteBuf composite, int length) {
        int index = composite.readerIndex();
        if (length == 0 || composite.numComponents() < 2) {
            return null;
        }
        int c = composite.toComponentIndex(index);
        int start = composite.toByteIndex(c);
        ByteBuf component = composite.internalComponent(c);
        if (index + length > start + component.readableBytes()) {
            return null;
        }
        ByteBuf slice = RetainedSlice.of(component, component.readerIndex() + index - start, length);
        composite.skipBytes(length);
        return slice;
    }
}
