package dev.rpcrdma.oncrpc.xdr;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.internal.ObjectUtil;

/**
 * Writes XDR (RFC 4506) items into a {@link ByteBuf}. Does not own the buffer.
 *
 * <p>A writer obtained from {@link XdrPayload#writer()} follows the payload's current segment, so items written
 * after a DDP-eligible item land after it.
 */
public final class XdrWriter {

    private final XdrPayload owner;
    private ByteBuf target;

    /** A writer appending to {@code out}. */
    public XdrWriter(ByteBuf out) {
        this.target = ObjectUtil.checkNotNull(out, "out");
        this.owner = null;
    }

    XdrWriter(ByteBuf out, XdrPayload owner) {
        this.target = out;
        this.owner = owner;
    }

    void target(ByteBuf out) {
        this.target = out;
    }

    /** The buffer written to (a payload's current segment is allocated on first use). */
    public ByteBuf buffer() {
        return out();
    }

    private ByteBuf out() {
        ByteBuf o = target;
        if (owner != null && o.maxCapacity() == 0) {
            o = owner.writableSegment();
        }
        return o;
    }

    /** RFC 4506 §4.1 int. */
    public XdrWriter writeInt(int v) {
        out().writeInt(v);
        return this;
    }

    /** RFC 4506 §4.2 unsigned int (the low 32 bits of {@code v}). */
    public XdrWriter writeUnsignedInt(long v) {
        if (v < 0 || v > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("unsigned int out of range: " + v);
        }
        out().writeInt((int) v);
        return this;
    }

    /** RFC 4506 §4.5 hyper / unsigned hyper. */
    public XdrWriter writeHyper(long v) {
        out().writeLong(v);
        return this;
    }

    /** RFC 4506 §4.4 bool. */
    public XdrWriter writeBool(boolean v) {
        out().writeInt(v ? 1 : 0);
        return this;
    }

    /** RFC 4506 §4.3 enum. */
    public XdrWriter writeEnum(int v) {
        out().writeInt(v);
        return this;
    }

    /** Writes the zero pad that follows {@code length} data bytes (RFC 4506 §4.10). */
    public XdrWriter writePad(int length) {
        out().writeZero(Xdr.pad(length));
        return this;
    }

    /** RFC 4506 §4.9 fixed-length opaque: the bytes then the pad. */
    public XdrWriter writeFixedOpaque(byte[] data) {
        out().writeBytes(data);
        return writePad(data.length);
    }

    /** RFC 4506 §4.10 variable-length opaque: length, bytes, pad. */
    public XdrWriter writeOpaque(byte[] data) {
        out().writeInt(data.length);
        return writeFixedOpaque(data);
    }

    /** RFC 4506 §4.10 variable-length opaque from the readable bytes of {@code data} (not released, not moved). */
    public XdrWriter writeOpaque(ByteBuf data) {
        int length = data.readableBytes();
        ByteBuf out = out();
        out.writeInt(length);
        out.writeBytes(data, data.readerIndex(), length);
        return writePad(length);
    }

    /** RFC 4506 §4.11 string, encoded as UTF-8. */
    public XdrWriter writeString(String s) {
        ByteBuf out = out();
        int lengthIndex = out.writerIndex();
        out.writeInt(0);
        int length = ByteBufUtil.writeUtf8(out, s);
        out.setInt(lengthIndex, length);
        return writePad(length);
    }
}
