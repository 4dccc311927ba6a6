package dev.rpcrdma.benchmarks.codec;

import dev.rpcrdma.handlers.header.RdmaSegment;
import dev.rpcrdma.handlers.header.ReadSegment;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderDecoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderException;
import dev.rpcrdma.handlers.header.WriteChunk;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The RPC-over-RDMA Version 1 transport header (RFC 8166 §4.3), as the requester and responder build and parse it
 * for every message: an RDMA_MSG with empty chunk lists (a small inline call or reply), and one with a Read chunk
 * and a Write chunk (an ECHO whose argument and result travel by DDP). Build + encode creates the header objects as
 * the handlers do; decode parses into a new {@link RpcRdmaHeader} with the default bounds.
 * {@code java -jar benchmarks/target/benchmarks.jar RpcRdmaHeaderBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RpcRdmaHeaderBenchmark {

    private final RpcRdmaHeaderDecoder decoder = new RpcRdmaHeaderDecoder();
    private ByteBuf out;
    private ByteBuf plain;
    private ByteBuf withChunks;
    private int xid;

    @Setup
    public void setUp() {
        out = PooledByteBufAllocator.DEFAULT.directBuffer(256);
        plain = PooledByteBufAllocator.DEFAULT.directBuffer(256);
        RpcRdmaHeaderEncoder.encode(RpcRdmaHeader.msg(1, 32), plain);
        withChunks = PooledByteBufAllocator.DEFAULT.directBuffer(256);
        RpcRdmaHeaderEncoder.encode(chunked(1), withChunks);
    }

    @TearDown
    public void tearDown() {
        out.release();
        plain.release();
        withChunks.release();
    }

    private static RpcRdmaHeader chunked(int xid) {
        // ECHO of 64 KiB: argument in a Read chunk at XDR position 44, result into a one-segment Write chunk.
        return RpcRdmaHeader.msg(xid, 32,
                List.of(new ReadSegment(44, new RdmaSegment(0x1234_5600 + (xid & 0xff), 65536, 0x7f00_0000_1000L))),
                List.of(WriteChunk.of(new RdmaSegment(0x2345_6700, 65536, 0x7f00_0001_0000L))), null);
    }

    @Benchmark
    public int buildAndEncodePlain() {
        out.clear();
        RpcRdmaHeaderEncoder.encode(RpcRdmaHeader.msg(++xid, 32), out);
        return out.writerIndex();
    }

    @Benchmark
    public int buildAndEncodeWithReadAndWriteChunk() {
        out.clear();
        RpcRdmaHeaderEncoder.encode(chunked(++xid), out);
        return out.writerIndex();
    }

    @Benchmark
    public RpcRdmaHeader decodePlain() throws RpcRdmaHeaderException {
        return decoder.decode(plain.duplicate());
    }

    @Benchmark
    public RpcRdmaHeader decodeWithReadAndWriteChunk() throws RpcRdmaHeaderException {
        return decoder.decode(withChunks.duplicate());
    }
}
