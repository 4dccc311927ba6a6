package dev.rpcrdma.samples.echo;

import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcReplyDecoder;
import dev.rpcrdma.oncrpc.server.RpcCallContext;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.xdr.Xdr;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.internal.ObjectUtil;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * The echo program, served the same way over TCP and over RPC-over-RDMA. Its contract (stable: other tools
 * talk to it):
 * <pre>
 *   program ECHO_PROG {                      // 0x2004F001, in the user-defined range (RFC 5531 §7.3)
 *     version ECHO_VERS {                    // 1
 *       void        ECHOPROC_NULL(void)   = 0;
 *       opaque_data ECHOPROC_ECHO(opaque_data) = 1;   // typedef opaque opaque_data&lt;&gt;;
 *     } = 1;
 *   } = 0x2004F001;
 * </pre>
 * The opaque item is DDP-eligible in the call and in the reply (RFC 8166 §6, "Upper-Layer Binding
 * Specifications"): over RPC-over-RDMA a large argument travels in a Read chunk and a large result in a Write
 * chunk. Over TCP the same calls are plain XDR. The default port is {@value #DEFAULT_PORT} on both transports.
 *
 * <p>The server procedure is zero-copy: the received bytes (a slice of the inbound record, or the buffer an RDMA
 * Read placed) are handed back as the reply's DDP item.
 */
public final class EchoProgram {

    /** Program number (user-defined range 0x20000000-0x3fffffff, RFC 5531 §7.3). */
    public static final int PROGRAM = 0x2004F001;
    /** Program version. */
    public static final int VERSION = 1;
    /** Procedure 0: void to void. */
    public static final int PROC_NULL = 0;
    /** Procedure 1: {@code opaque data<>} to the same {@code opaque data<>}. */
    public static final int PROC_ECHO = 1;
    /** Default port, TCP and RDMA. */
    public static final int DEFAULT_PORT = 20049;
    /**
     * The largest payload this implementation echoes (a server limit, not part of the XDR contract): larger
     * arguments are answered GARBAGE_ARGS before anything is allocated for them.
     */
    public static final int MAX_DATA = 4 << 20;

    /**
     * Reply bytes besides the echoed data: RPC reply header with an AUTH_NONE verifier (xid, msg_type,
     * reply_stat, verifier flavor and length, accept_stat: RFC 5531 §9) and the opaque's length word.
     */
    private static final int REPLY_OVERHEAD = 6 * Xdr.UNIT + Xdr.UNIT;

    private EchoProgram() {
    }

    /** Registers NULL and ECHO of program {@value #PROGRAM} version {@value #VERSION}; returns {@code registry}. */
    public static RpcProgramRegistry register(RpcProgramRegistry registry) {
        ObjectUtil.checkNotNull(registry, "registry");
        return registry.registerNull(PROGRAM, VERSION)
                .register(PROGRAM, VERSION, PROC_ECHO, EchoProgram::echo);
    }

    /** Server side of ECHO: returns the argument as the result, without copying it. */
    static void echo(RpcCallContext call, XdrReader args) throws XdrException {
        // RFC 8166 §3.4: the argument is DDP-eligible; bounded before anything is allocated for it.
        ByteBuf data = args.readDdpOpaque(MAX_DATA);
        XdrPayload results;
        try {
            results = call.newPayload();
        } catch (Throwable t) {
            data.release();
            throw t;
        }
        // The payload takes ownership of data; the reply context takes ownership of the payload. Nothing waits on
        // the reply's write: the void promise spares a future per call.
        call.replySuccess(results.writeDdpOpaque(data), call.voidPromise());
    }

    /**
     * Call options for an ECHO of {@code size} bytes: the RPC-over-RDMA reply hints, so that the requester can
     * provision a Write chunk for the echoed item (and a Reply chunk bound) before sending (RFC 8166 §3.4.2).
     * TCP ignores them.
     */
    public static CallOptions echoOptions(CallOptions base, int size) {
        ObjectUtil.checkInRange(size, 0, MAX_DATA, "size");
        return base.withReplyHints(size, maxReplySize(size));
    }

    /** The largest reply an ECHO of {@code size} bytes can produce. */
    static int maxReplySize(int size) {
        return REPLY_OVERHEAD + (int) Xdr.padded(size);
    }

    /** Calls NULL. */
    public static CompletableFuture<Void> callNull(RpcClient client) {
        return client.callNull(PROGRAM, VERSION);
    }

    /**
     * Calls ECHO with the readable bytes of {@code data} (ownership passes to the call) and completes with
     * whether the reply carried exactly those bytes. {@code data} is kept (retained) until the reply arrives so
     * that every echoed byte is compared with what was sent.
     */
    public static CompletableFuture<Boolean> callEcho(RpcClient client, ByteBuf data, CallOptions options) {
        ObjectUtil.checkNotNull(data, "data");
        int size = data.readableBytes();
        ByteBuf expected = data.retainedDuplicate();
        XdrPayload args;
        try {
            args = client.newPayload().writeDdpOpaque(data);
        } catch (Throwable t) {
            data.release();
            expected.release();
            throw t;
        }
        RpcReplyDecoder<Boolean> verify = results -> {
            ByteBuf echoed = results.readDdpOpaque(size);
            try {
                return sameBytes(expected, echoed);
            } finally {
                echoed.release();
            }
        };
        CompletableFuture<Boolean> f = client.call(PROGRAM, VERSION, PROC_ECHO, args, verify,
                echoOptions(options, size));
        f.whenComplete((ok, cause) -> expected.release());
        return f;
    }

    /**
     * Whether {@code a} and {@code b} hold the same readable bytes. When each is one NIO buffer (direct or heap,
     * slices included) the JDK's {@link ByteBuffer#mismatch} compares them (vectorized, where
     * {@link ByteBufUtil#equals} reads and bounds-checks one long at a time: its checks were 17% of a 1 MiB echo
     * client's loop samples; the echo's rate did not change, the client's CPU not being its bound); else
     * {@link ByteBufUtil#equals}. Indices are not changed.
     */
    static boolean sameBytes(ByteBuf a, ByteBuf b) {
        int length = a.readableBytes();
        if (length != b.readableBytes()) {
            return false;
        }
        if (a.nioBufferCount() == 1 && b.nioBufferCount() == 1) {
            return a.nioBuffer(a.readerIndex(), length).mismatch(b.nioBuffer(b.readerIndex(), length)) == -1;
        }
        return ByteBufUtil.equals(a, b);
    }
}
