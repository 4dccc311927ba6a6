package dev.rpcrdma.benchmarks.codec;

import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * rpc-codec's per-message work, without any transport: encoding an ONC RPC call (RFC 5531) whose argument is a
 * DDP-eligible {@code opaque<>} of {@code size} bytes, fully inline (TCP) and reduced (the RPC-over-RDMA inline part,
 * RFC 8166 §3.4.5), decoding it, and raw {@link XdrWriter} output of an NFSv3 {@code fattr3}-shaped structure.
 * Buffers come from the pooled direct allocator, as in the transports. Run with {@code -prof gc} for bytes/op:
 * {@code java -jar benchmarks/target/benchmarks.jar RpcCodecBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RpcCodecBenchmark {

    private static final int PROG = 0x2004F001;

    /** Argument size in bytes. */
    @Param({"0", "1024", "65536"})
    public int size;

    private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    private ByteBuf data;
    private OutboundRpcMessage call;
    private ByteBuf encodedCall;
    private ByteBuf attrs;
    private int xid;

    @Setup
    public void setUp() {
        data = alloc.directBuffer(size);
        for (int i = 0; i < size; i++) {
            data.writeByte(i * 31);
        }
        call = newCall(1);
        encodedCall = RpcMessageCodec.encodeInline(alloc, call);
        attrs = alloc.directBuffer(256);
    }

    @TearDown
    public void tearDown() {
        call.release();
        encodedCall.release();
        attrs.release();
        data.release();
    }

    private OutboundRpcMessage newCall(int xid) {
        XdrPayload args = XdrPayload.newPayload(alloc);
        args.writer().writeInt(7);
        args.writeDdpOpaque(data.retainedDuplicate());
        return new OutboundRpcMessage(new RpcCall(xid, PROG, 1, 1, OpaqueAuth.NONE), args);
    }

    /** Builds a call (header, one plain int, one DDP opaque) and encodes it fully inline: the TCP path. */
    @Benchmark
    public int encodeCallInline() {
        OutboundRpcMessage m = newCall(++xid);
        ByteBuf out = RpcMessageCodec.encodeInline(alloc, m, 4);
        int n = out.readableBytes();
        out.release();
        m.release();
        return n;
    }

    /**
     * Builds the same call and produces what RPC-over-RDMA sends inline: the reduced stream without the DDP item's
     * data (which would go in a Read chunk) plus the item's XDR position.
     */
    @Benchmark
    public int encodeCallReduced() {
        OutboundRpcMessage m = newCall(++xid);
        XdrPayload p = RpcMessageCodec.encode(alloc, m);
        ByteBuf out = alloc.directBuffer(p.reducedLength());
        p.writeReduced(out);
        int n = out.readableBytes() + p.ddpItems().get(0).position();
        out.release();
        p.release();
        m.release();
        return n;
    }

    /** Decodes the call's header and reads its arguments (the opaque as a zero-copy slice). */
    @Benchmark
    public int decodeCall() throws XdrException {
        InboundRpcMessage m = RpcMessageCodec.decode(encodedCall.retainedDuplicate());
        try {
            int v = m.body().readInt();
            ByteBuf opaque = m.body().readDdpOpaque(1 << 20);
            v += opaque.readableBytes();
            opaque.release();
            return v + ((RpcCall) m.header()).procedure();
        } finally {
            m.release();
        }
    }

    /** Raw XDR output: an NFSv3 fattr3 (RFC 1813 §2.6), 84 bytes of ints and hypers. */
    @Benchmark
    public int xdrWriteFattr3() {
        attrs.clear();
        XdrWriter w = new XdrWriter(attrs);
        w.writeEnum(1).writeUnsignedInt(0644).writeUnsignedInt(1).writeUnsignedInt(1000).writeUnsignedInt(1000)
                .writeHyper(size).writeHyper(size).writeUnsignedInt(0).writeUnsignedInt(0).writeHyper(0x1234)
                .writeHyper(42).writeUnsignedInt(1_700_000_000).writeUnsignedInt(1)
                .writeUnsignedInt(1_700_000_000).writeUnsignedInt(2).writeUnsignedInt(1_700_000_000)
                .writeUnsignedInt(3);
        return attrs.writerIndex();
    }
}
