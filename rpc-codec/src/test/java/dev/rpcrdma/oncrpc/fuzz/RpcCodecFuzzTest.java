package dev.rpcrdma.oncrpc.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.tcp.RecordMarkingDecoder;
import dev.rpcrdma.oncrpc.tcp.RpcMessageDecoder;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.testing.BoundedAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Coverage-guided fuzz targets (Jazzer) for the ONC RPC decoders that read untrusted bytes: {@link XdrReader}
 * (RFC 4506), {@link RpcMessageCodec#decode(ByteBuf)} (RFC 5531 §9) and the TCP record-marking decoder (RFC 5531
 * §11) with the message decoder behind it. Plain {@code mvn test} replays the checked-in corpus under
 * {@code src/test/resources/.../RpcCodecFuzzTestInputs/<target>/} (one seed per bad-input class of
 * {@code XdrReaderTest}, {@code RpcMessageCodecTest} and {@code RecordMarkingTest}); with {@code JAZZER_FUZZ=1} the
 * one selected target is fuzzed (see the README's "Reliability" section). The invariants: no exception but the
 * decoder's declared {@link XdrException} escapes, every buffer is released (paranoid leak detection), and no
 * buffer is allocated above a bound derived from the input ({@link BoundedAllocator}). Single-threaded.
 */
class RpcCodecFuzzTest {

    /** A record larger than any fuzz input, so the bound is the input, not the configuration. */
    private static final int MAX_RECORD = 64 * 1024;

    /**
     * Drives an {@link XdrReader} with a program taken from the input: byte 0 is the number of operations (low 4
     * bits) and whether placed DDP data follows (bit 4), the next bytes the operations, then (with placed data) one
     * byte giving its length; the rest is the XDR stream.
     */
    @FuzzTest(maxDuration = "10s")
    void xdrReader(byte[] data) {
        if (data.length == 0) {
            return;
        }
        int ops = data[0] & 0x0f;
        boolean withPlaced = (data[0] & 0x10) != 0;
        int header = 1 + ops + (withPlaced ? 1 : 0);
        if (data.length < header) {
            return;
        }
        int placedLength = withPlaced ? Math.min(data[1 + ops] & 0xff, data.length - header) : 0;
        ByteBuf in = Unpooled.wrappedBuffer(data, header + placedLength, data.length - header - placedLength);
        Deque<ByteBuf> placed = new ArrayDeque<>();
        if (withPlaced) {
            placed.add(Unpooled.wrappedBuffer(data, header, placedLength));
            placed.add(Unpooled.EMPTY_BUFFER);
        }
        XdrReader reader = withPlaced ? new XdrReader(in, placed) : new XdrReader(in);
        try {
            for (int i = 0; i < ops; i++) {
                int op = data[1 + i] & 0xff;
                int max = (op >>> 4) * 64; // bounds 0..960
                int before = reader.readableBytes();
                switch (op & 0x0f) {
                    case 0: reader.readInt(); break;
                    case 1: reader.readUnsignedInt(); break;
                    case 2: reader.readHyper(); break;
                    case 3: reader.readBool(); break;
                    case 4: assertTrue(reader.readOpaque(max).length <= max); break;
                    case 5: release(reader.readOpaqueSlice(max), max); break;
                    case 6: reader.skipOpaque(max); break;
                    case 7: assertTrue(reader.readString(max).length() <= max); break;
                    case 8: {
                        int n = reader.readArrayLength(max, 4);
                        assertTrue(n <= max && 4L * n <= reader.readableBytes());
                        break;
                    }
                    case 9: reader.readFixedOpaque(op >>> 4); break;
                    case 10: release(reader.readDdpOpaque(max), max); break;
                    default: reader.readEnum(); break;
                }
                assertTrue(reader.readableBytes() <= before, "a read never moves backwards");
            }
        } catch (XdrException expected) {
            // The declared failure of every read.
        } finally {
            for (ByteBuf b : placed) {
                b.release();
            }
            in.release();
        }
    }

    private static void release(ByteBuf b, int max) {
        try {
            assertTrue(b.readableBytes() <= max, "an item never exceeds its bound");
        } finally {
            b.release();
        }
    }

    /** {@link RpcMessageCodec#decode(ByteBuf)} on one record: a message or an {@link XdrException}, never a leak. */
    @FuzzTest(maxDuration = "10s")
    void rpcMessage(byte[] data) {
        BoundedAllocator alloc = new BoundedAllocator(data.length);
        ByteBuf record = alloc.directBuffer(data.length).writeBytes(data);
        InboundRpcMessage m;
        try {
            m = RpcMessageCodec.decode(record);
        } catch (XdrException expected) {
            assertEquals(0, record.refCnt(), "a refused record is released");
            return;
        }
        try {
            assertTrue(m.body().readableBytes() <= data.length);
            if (m.header() instanceof RpcCall) {
                RpcCall call = (RpcCall) m.header();
                assertTrue(call.credential() == null || call.credential().bodyLength() <= 400);
            }
        } finally {
            m.release();
        }
        assertEquals(0, record.refCnt(), "the message owned the record");
    }

    /**
     * The TCP server's inbound pipeline head: the input is cut into reads (byte 0 gives the read size), fed to a
     * {@link RecordMarkingDecoder} and a {@link RpcMessageDecoder}, then the connection ends. Whatever the bytes,
     * nothing is thrown into the pipeline and no allocation exceeds the record bound.
     */
    @FuzzTest(maxDuration = "10s")
    void recordMarking(byte[] data) {
        if (data.length == 0) {
            return;
        }
        int maxRecord = (data[0] & 0x80) != 0 ? 64 : MAX_RECORD;
        int chunk = 1 + (data[0] & 0x7f);
        BoundedAllocator alloc = new BoundedAllocator(Math.max(maxRecord, 2 * data.length) + 1024);
        RpcStats stats = new RpcStats();
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(alloc);
        ch.pipeline().addLast(new RecordMarkingDecoder(maxRecord, stats), new RpcMessageDecoder(stats));
        try {
            for (int i = 1; i < data.length && ch.isOpen(); i += chunk) {
                ByteBuf read = alloc.buffer(chunk).writeBytes(Arrays.copyOfRange(data, i,
                        Math.min(data.length, i + chunk)));
                ch.writeInbound(read);
                drain(ch, maxRecord);
            }
            ch.finish();
            drain(ch, maxRecord);
        } finally {
            ch.finishAndReleaseAll();
        }
        assertEquals(0, alloc.oversizedRequests());
    }

    private static void drain(EmbeddedChannel ch, int maxRecord) {
        for (Object o; (o = ch.readInbound()) != null; ) {
            try {
                assertTrue(o instanceof InboundRpcMessage);
                assertTrue(((InboundRpcMessage) o).body().readableBytes() <= maxRecord);
            } finally {
                ReferenceCountUtil.release(o);
            }
        }
    }
}
