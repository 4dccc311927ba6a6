package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import io.netty.buffer.ByteBuf;

/**
 * One ONC RPC service written only against rpc-codec (no transport knowledge), served over TCP and over
 * RPC-over-RDMA by the tests.
 */
final class EchoService {
    static final int PROG = 0x2004F0AA;
    static final int VERS = 1;
    /** DDP opaque in, the same DDP opaque out. */
    static final int ECHO = 1;
    /** DDP opaque in; returns its length and a hash. */
    static final int SUM = 2;
    /** int n in; returns n pattern bytes as a DDP opaque. */
    static final int FILL = 3;
    /** Plain (not DDP-eligible) opaque in; returns its length and hash. */
    static final int PLAIN_SUM = 4;
    /** int n in; returns n pattern bytes as a plain opaque. */
    static final int PLAIN_FILL = 5;
    /** int n1, int n2 in; returns a plain opaque of n1 bytes then a DDP opaque of n2 bytes. */
    static final int BOTH = 6;
    /** DDP opaque a, int marker, DDP opaque b in; returns length and hash of a, the marker, length and hash of b. */
    static final int SUM2 = 7;
    /** int n1, int n2 in; returns two DDP opaques of n1 and n2 pattern bytes. */
    static final int TWO = 8;
    /** int n1, int n2, int n3 in; returns three DDP opaques of n1, n2 and n3 pattern bytes. */
    static final int THREE = 9;
    static final int MAX = 4 << 20;

    private EchoService() {
    }

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7 + (i >>> 9));
        }
        return b;
    }

    /** Reads a DDP-eligible {@code opaque<>} result (placed by a Write chunk or inline) as bytes, releasing it. */
    static byte[] readDdpBytes(XdrReader r) throws XdrException {
        ByteBuf b = r.readDdpOpaque(MAX);
        try {
            byte[] out = new byte[b.readableBytes()];
            b.getBytes(b.readerIndex(), out);
            return out;
        } finally {
            b.release();
        }
    }

    static int hash(ByteBuf b) {
        int h = 1;
        for (int i = b.readerIndex(); i < b.writerIndex(); i++) {
            h = 31 * h + b.getByte(i);
        }
        return h;
    }

    static int hash(byte[] b) {
        int h = 1;
        for (byte x : b) {
            h = 31 * h + x;
        }
        return h;
    }

    static RpcProgramRegistry registry() {
        return new RpcProgramRegistry()
                .registerNull(PROG, VERS)
                .register(PROG, VERS, ECHO, (call, args) -> {
                    ByteBuf data = args.readDdpOpaque(MAX);
                    XdrPayload results = call.newPayload();
                    results.writeDdpOpaque(data);
                    call.replySuccess(results);
                })
                .register(PROG, VERS, SUM, (call, args) -> {
                    ByteBuf data = args.readDdpOpaque(MAX);
                    try {
                        XdrPayload results = call.newPayload();
                        results.writer().writeInt(data.readableBytes()).writeInt(hash(data));
                        call.replySuccess(results);
                    } finally {
                        data.release();
                    }
                })
                .register(PROG, VERS, FILL, (call, args) -> {
                    int n = args.readInt();
                    XdrPayload results = call.newPayload();
                    results.writeDdpOpaque(call.alloc().buffer(n).writeBytes(pattern(n, n)));
                    call.replySuccess(results);
                })
                .register(PROG, VERS, PLAIN_SUM, (call, args) -> {
                    byte[] data = args.readOpaque(MAX);
                    XdrPayload results = call.newPayload();
                    results.writer().writeInt(data.length).writeInt(hash(data));
                    call.replySuccess(results);
                })
                .register(PROG, VERS, PLAIN_FILL, (call, args) -> {
                    int n = args.readInt();
                    XdrPayload results = call.newPayload();
                    results.writer().writeOpaque(pattern(n, n));
                    call.replySuccess(results);
                })
                .register(PROG, VERS, SUM2, (call, args) -> {
                    ByteBuf a = args.readDdpOpaque(MAX);
                    int marker = args.readInt();
                    ByteBuf b = args.readDdpOpaque(MAX);
                    try {
                        XdrPayload results = call.newPayload();
                        results.writer().writeInt(a.readableBytes()).writeInt(hash(a)).writeInt(marker)
                                .writeInt(b.readableBytes()).writeInt(hash(b));
                        call.replySuccess(results);
                    } finally {
                        a.release();
                        b.release();
                    }
                })
                .register(PROG, VERS, TWO, (call, args) -> {
                    int n1 = args.readInt();
                    int n2 = args.readInt();
                    XdrPayload results = call.newPayload();
                    results.writeDdpOpaque(call.alloc().buffer(n1).writeBytes(pattern(n1, 1)));
                    results.writeDdpOpaque(call.alloc().buffer(n2).writeBytes(pattern(n2, 2)));
                    call.replySuccess(results);
                })
                .register(PROG, VERS, THREE, (call, args) -> {
                    int n1 = args.readInt();
                    int n2 = args.readInt();
                    int n3 = args.readInt();
                    XdrPayload results = call.newPayload();
                    results.writeDdpOpaque(call.alloc().buffer(n1).writeBytes(pattern(n1, 1)));
                    results.writeDdpOpaque(call.alloc().buffer(n2).writeBytes(pattern(n2, 2)));
                    results.writeDdpOpaque(call.alloc().buffer(n3).writeBytes(pattern(n3, 3)));
                    call.replySuccess(results);
                })
                .register(PROG, VERS, BOTH, (call, args) -> {
                    int n1 = args.readInt();
                    int n2 = args.readInt();
                    XdrPayload results = call.newPayload();
                    results.writer().writeOpaque(pattern(n1, 1));
                    results.writeDdpOpaque(call.alloc().buffer(n2).writeBytes(pattern(n2, 2)));
                    call.replySuccess(results);
                });
    }
}
