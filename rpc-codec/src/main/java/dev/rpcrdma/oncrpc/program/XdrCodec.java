package dev.rpcrdma.oncrpc.program;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.util.internal.ObjectUtil;

/**
 * How one XDR type (RFC 4506) travels: written into an outbound {@link XdrPayload}, read from an {@link XdrReader}.
 * The argument and result types of an {@link RpcProcedureSpec}. A codec is stateless and shared by every thread;
 * {@code read} runs on the connection's event loop while its reader is valid, so it must return a value that owns
 * its data (a copy, or a buffer whose release passes to the caller).
 *
 * @param <T> the Java type
 */
public interface XdrCodec<T> {

    /** Writes {@code value} at the end of {@code out}. */
    void write(XdrPayload out, T value) throws XdrException;

    /** Reads one value. */
    T read(XdrReader in) throws XdrException;

    /** Writes one value (a codec's write half). */
    @FunctionalInterface
    interface Writer<T> {
        /** Writes {@code value} at the end of {@code out}. */
        void write(XdrPayload out, T value) throws XdrException;
    }

    /** Reads one value (a codec's read half). */
    @FunctionalInterface
    interface Reader<T> {
        /** Reads one value. */
        T read(XdrReader in) throws XdrException;
    }

    /** A codec of a writer and a reader, e.g. {@code XdrCodec.of((out, p) -> ..., in -> new Point(...))}. */
    static <T> XdrCodec<T> of(Writer<T> writer, Reader<T> reader) {
        ObjectUtil.checkNotNull(writer, "writer");
        ObjectUtil.checkNotNull(reader, "reader");
        return new XdrCodec<>() {
            @Override
            public void write(XdrPayload out, T value) throws XdrException {
                writer.write(out, value);
            }

            @Override
            public T read(XdrReader in) throws XdrException {
                return reader.read(in);
            }
        };
    }

    /** Nothing on the wire (void arguments or results); reads as null. */
    XdrCodec<Void> VOID = of((out, value) -> { }, in -> null);

    /** RFC 4506 §4.1 int. */
    XdrCodec<Integer> INT = of((out, value) -> out.writer().writeInt(value), XdrReader::readInt);

    /** RFC 4506 §4.5 hyper. */
    XdrCodec<Long> HYPER = of((out, value) -> out.writer().writeHyper(value), XdrReader::readHyper);

    /** RFC 4506 §4.4 bool. */
    XdrCodec<Boolean> BOOL = of((out, value) -> out.writer().writeBool(value), XdrReader::readBool);

    /**
     * RFC 4506 §4.11 {@code string<max>}, UTF-8. A longer value does not encode (an {@link XdrException} naming the
     * bound and the size), as the peer would not decode it.
     */
    static XdrCodec<String> string(int max) {
        ObjectUtil.checkPositiveOrZero(max, "max");
        return of((out, value) -> {
            checkBound("string", max, ByteBufUtil.utf8Bytes(value));
            out.writer().writeString(value);
        }, in -> in.readString(max));
    }

    /**
     * RFC 4506 §4.10 {@code opaque<max>}, a plain (not DDP-eligible) item, as a byte array. A longer value does not
     * encode (an {@link XdrException} naming the bound and the size), as the peer would not decode it.
     */
    static XdrCodec<byte[]> opaque(int max) {
        ObjectUtil.checkPositiveOrZero(max, "max");
        return of((out, value) -> {
            checkBound("opaque", max, value.length);
            out.writer().writeOpaque(value);
        }, in -> in.readOpaque(max));
    }

    /** Throws unless {@code length} fits {@code kind<max>}: the message names both, as the reader's does. */
    private static void checkBound(String kind, int max, int length) throws XdrException {
        if (length > max) {
            throw new XdrException(kind + "<" + max + "> of length " + length + ", over its bound " + max);
        }
    }

    /**
     * RFC 4506 §4.10 {@code opaque<max>} that is DDP-eligible (RFC 8166 §3.4: the upper-layer binding lets it move
     * by RDMA Read or Write), as a byte array. Read the same way whether it came inline or was placed; a longer value
     * does not encode.
     */
    static XdrCodec<byte[]> ddpOpaque(int max) {
        ObjectUtil.checkPositiveOrZero(max, "max");
        return of((out, value) -> {
            checkBound("opaque", max, value.length);
            out.writeDdpOpaque(Unpooled.wrappedBuffer(value));
        }, in -> in.readOpaque(max));
    }
}
