package dev.rpcrdma.handlers.binding;

import dev.rpcrdma.oncrpc.xdr.Xdr;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import io.netty.buffer.ByteBuf;

/**
 * A bounded read cursor over the readable bytes of a {@link ByteBuf} for bindings: it never moves the buffer's
 * indices, every read and skip is checked against the end first (an {@link XdrException} otherwise), and nothing is
 * allocated by a length read from the bytes. Positions are relative to the buffer's reader index.
 */
final class XdrCursor {
    private final ByteBuf buf;
    private final int base;
    private final int end;
    private int position;

    XdrCursor(ByteBuf buf) {
        this.buf = buf;
        this.base = buf.readerIndex();
        this.end = buf.readableBytes();
    }

    /** The offset of the next unread byte from the reader index. */
    int position() {
        return position;
    }

    boolean atEnd() {
        return position == end;
    }

    int readInt() throws XdrException {
        need(4);
        int v = buf.getInt(base + position);
        position += 4;
        return v;
    }

    boolean readBool() throws XdrException {
        int v = readInt();
        if (v != 0 && v != 1) {
            throw new XdrException("bool of " + Integer.toUnsignedString(v) + " at " + (position - 4));
        }
        return v == 1;
    }

    void skip(long n) throws XdrException {
        need(n);
        position += (int) n;
    }

    /** Skips a variable-length opaque of at most {@code max} bytes (length word, data, pad). */
    void skipOpaque(int max) throws XdrException {
        long length = Integer.toUnsignedLong(readInt());
        if (length > max) {
            throw new XdrException("opaque of " + length + " bytes at " + (position - 4) + ", more than " + max);
        }
        skip(Xdr.padded(length));
    }

    /**
     * Reads the length word of a DDP-eligible opaque of at most {@code max} bytes, checks that its data and pad lie
     * within the bytes, records {@code (position, length)} as item {@code index} in {@code items} and moves past it.
     * Returns the number of items recorded: {@code index + 1}, or {@code index} when {@code items} has no room left
     * (the item is then checked and skipped, and stays inline: RFC 8267 §6.4.1, results past the Write list).
     */
    int item(int max, int[] items, int index) throws XdrException {
        long length = Integer.toUnsignedLong(readInt());
        if (length > max) {
            throw new XdrException("data item of " + length + " bytes at " + (position - 4) + ", more than " + max);
        }
        need(Xdr.padded(length));
        if (2 * index + 1 >= items.length) {
            position += (int) Xdr.padded(length);
            return index;
        }
        items[2 * index] = position;
        items[2 * index + 1] = (int) length;
        position += (int) Xdr.padded(length);
        return index + 1;
    }

    private void need(long n) throws XdrException {
        if (n < 0 || n > end - position) {
            throw new XdrException("truncated XDR: " + n + " bytes needed at " + position + ", " + (end - position)
                    + " left");
        }
    }
}
