package dev.rpcrdma.oncrpc.program;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
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

    /** Nothing on the wire (void arguments or results); reads as null. */
    XdrCodec<Void> VOID = new XdrCodec<>() {
        @Override
        public void write(XdrPayload out, Void value) {
        }

        @Override
        public Void read(XdrReader in) {
            return null;
        }
    };

    /** RFC 4506 §4.1 int. */
    XdrCodec<Integer> INT = new XdrCodec<>() {
        @Override
        public void write(XdrPayload out, Integer value) {
            out.writer().writeInt(value);
        }

        @Override
        public Integer read(XdrReader in) throws XdrException {
            return in.readInt();
        }
    };

    /** RFC 4506 §4.5 hyper. */
    XdrCodec<Long> HYPER = new XdrCodec<>() {
        @Override
        public void write(XdrPayload out, Long value) {
            out.writer().writeHyper(value);
        }

        @Override
        public Long read(XdrReader in) throws XdrException {
            return in.readHyper();
        }
    };

    /** RFC 4506 §4.4 bool. */
    XdrCodec<Boolean> BOOL = new XdrCodec<>() {
        @Override
        public void write(XdrPayload out, Boolean value) {
            out.writer().writeBool(value);
        }

        @Override
        public Boolean read(XdrReader in) throws XdrException {
            return in.readBool();
        }
    };

    /** RFC 4506 §4.11 {@code string<max>}, UTF-8. */
    static XdrCodec<String> string(int max) {
        ObjectUtil.checkPositiveOrZero(max, "max");
        return new XdrCodec<>() {
            @Override
            public void write(XdrPayload out, String value) {
                out.writer().writeString(value);
            }

            @Override
            public String read(XdrReader in) throws XdrException {
                return in.readString(max);
            }
        };
    }

    /** RFC 4506 §4.10 {@code opaque<max>}, a plain (not DDP-eligible) item, as a byte array. */
    static XdrCodec<byte[]> opaque(int max) {
        ObjectUtil.checkPositiveOrZero(max, "max");
        return new XdrCodec<>() {
            @Override
            public void write(XdrPayload out, byte[] value) {
                out.writer().writeOpaque(value);
            }

            @Override
            public byte[] read(XdrReader in) throws XdrException {
                return in.readOpaque(max);
            }
        };
    }

    /**
     * RFC 4506 §4.10 {@code opaque<max>} that is DDP-eligible (RFC 8166 §3.4: the upper-layer binding lets it move
     * by RDMA Read or Write), as a byte array. Read the same way whether it came inline or was placed.
     */
    static XdrCodec<byte[]> ddpOpaque(int max) {
        ObjectUtil.checkPositiveOrZero(max, "max");
        return new XdrCodec<>() {
            @Override
            public void write(XdrPayload out, byte[] value) {
                out.writeDdpOpaque(Unpooled.wrappedBuffer(value));
            }

            @Override
            public byte[] read(XdrReader in) throws XdrException {
                return in.readOpaque(max);
            }
        };
    }
}
