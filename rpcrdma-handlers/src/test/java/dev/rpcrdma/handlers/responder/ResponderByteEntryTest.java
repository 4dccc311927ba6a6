package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.handlers.ByteFraming;
import dev.rpcrdma.handlers.ByteFramingEntry;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RdmaProcedure;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderDecoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.oncrpc.RpcStats;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The byte framing's entry ({@link ByteFramingEntry}, the oncrpc4j bridge's): a whole-message reply written through
 * it goes straight into the responder when its context is the writer's next outbound one, makes the same Send as
 * through the pipeline and completes the writer's promise; the writer then gets the calls straight into its
 * {@code channelRead}; never with a handler between, and never with leak detection on.
 */
class ResponderByteEntryTest {
    private ResourceLeakDetector.Level level;
    private RpcRdmaResponder responder;
    private EmbeddedChannel ch;
    /** Whether the upper handler replies through the entry (else through its context). */
    private boolean useEntry = true;
    private final List<ChannelPromise> promises = new ArrayList<>();
    private final List<Boolean> taken = new ArrayList<>();

    /** The entry is for leak detection off (the pipeline touches each message per hop with it on). */
    @BeforeEach
    void leakDetectionOff() {
        level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        ch = channel();
    }

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
        ResourceLeakDetector.setLevel(level);
    }

    /** Answers each whole-message call with an empty MSG_ACCEPTED SUCCESS, as the bridge does. */
    private final class Upper extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf call = (ByteBuf) msg;
            int xid = call.getInt(call.readerIndex());
            call.release();
            ByteBuf reply = Unpooled.buffer().writeInt(xid).writeInt(1).writeInt(0).writeInt(0).writeInt(0)
                    .writeInt(0);
            ChannelPromise p = ctx.newPromise();
            promises.add(p);
            boolean direct = useEntry && responder.writeAndFlush(ctx, reply, p);
            taken.add(direct);
            if (!direct) {
                ctx.writeAndFlush(reply, p);
            }
        }
    }

    private EmbeddedChannel channel() {
        responder = new RpcRdmaResponder(ResponderSetup.of(RpcRdmaConfig.DEFAULT.withGrantBounds(1, 8),
                new InlineThresholds(4096, 4096, false), new RpcRdmaStats(), new RpcStats())
                .withFraming(ByteFraming.DEFAULT));
        return new EmbeddedChannel(responder, new Upper());
    }

    /** Receives an inline NULL call and returns the bytes of the Send that answered it. */
    private byte[] callAndSend(int xid) throws Exception {
        ByteBuf b = Unpooled.directBuffer();
        RpcRdmaHeaderEncoder.encode(RpcRdmaHeader.msg(xid, 8), b);
        b.writeInt(xid).writeInt(0).writeInt(2).writeInt(0x20000123).writeInt(1).writeInt(0);
        b.writeInt(0).writeInt(0).writeInt(0).writeInt(0);
        ch.writeInbound(new RdmaReceive(b, false, 0));
        assertNull(ch.readInbound(), "the upper handler took the call");
        ByteBuf send = assertInstanceOf(ByteBuf.class, ch.readOutbound(), "a reply was sent");
        try {
            byte[] bytes = ByteBufUtil.getBytes(send);
            ByteBuf h = Unpooled.wrappedBuffer(bytes);
            assertEquals(RdmaProcedure.RDMA_MSG, new RpcRdmaHeaderDecoder().decode(h).procedure());
            assertEquals(xid, h.readInt(), "the RPC reply follows inline");
            return bytes;
        } finally {
            send.release();
        }
    }

    @Test
    void aReplyThroughTheEntryIsTheSendThePipelineMakes() throws Exception {
        byte[] direct = callAndSend(7);
        assertEquals(List.of(true), taken);
        assertEquals(1, responder.directReplies());
        assertTrue(promises.get(0).isSuccess(), "the writer's promise completed with the Send");
        useEntry = false;
        byte[] piped = callAndSend(7);
        assertEquals(1, responder.directReplies());
        assertTrue(promises.get(1).isSuccess());
        assertArrayEquals(piped, direct);
        assertEquals(28 + 24, direct.length);
        assertEquals(0, responder.outstandingCalls());
    }

    @Test
    void callsGoStraightToTheWriterOnceItWroteThroughTheEntry() throws Exception {
        callAndSend(1);
        assertEquals(0, responder.directCalls(), "nothing adopted before the first direct reply");
        callAndSend(2);
        callAndSend(3);
        assertEquals(2, responder.directCalls());
        AtomicInteger reads = new AtomicInteger();
        String name = ch.pipeline().context(responder).name();
        ch.pipeline().addAfter(name, "user", new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                reads.incrementAndGet();
                ctx.fireChannelRead(msg);
            }
        });
        callAndSend(4);
        assertEquals(2, responder.directCalls());
        assertEquals(1, reads.get(), "the user's handler saw the call");
        assertFalse(taken.get(3), "nor does its reply take the entry: the user's handler is its next context now");
        ch.pipeline().remove("user");
        callAndSend(5);
        assertEquals(3, responder.directCalls(), "straight again once it is gone");
        assertTrue(taken.get(4));
    }

    @Test
    void noneTakesItWithAHandlerBetween() throws Exception {
        AtomicInteger writes = new AtomicInteger();
        String name = ch.pipeline().context(responder).name();
        ch.pipeline().addAfter(name, "user", new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                writes.incrementAndGet();
                ctx.write(msg, promise);
            }
        });
        callAndSend(1);
        callAndSend(2);
        assertEquals(List.of(false, false), taken);
        assertEquals(2, writes.get(), "the user's handler saw every reply");
        assertEquals(0, responder.directReplies());
        assertEquals(0, responder.directCalls());
        assertTrue(promises.get(1).isSuccess());
    }

    @Test
    void noneTakesItWithLeakDetectionOn() throws Exception {
        ch.finishAndReleaseAll();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ch = channel();
        callAndSend(1);
        callAndSend(2);
        assertEquals(List.of(false, false), taken);
        assertEquals(0, responder.directCalls());
        assertTrue(promises.get(1).isSuccess());
    }
}
