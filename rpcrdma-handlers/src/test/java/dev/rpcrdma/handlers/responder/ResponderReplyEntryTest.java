package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RdmaProcedure;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderDecoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
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

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The dispatcher's replies straight into the responder ({@code RpcReplyEntry}): taken for NULL and for replies with
 * the connection's void promise when the responder is the dispatcher's next outbound context, and never when a
 * handler sits between them, when the reply has a promise someone waits on, or with leak detection on; the Send is
 * the same either way.
 */
class ResponderReplyEntryTest {
    private static final int PROG = 0x20000123;
    private static final int VERS = 1;
    /** Answers with the connection's void promise. */
    private static final int PROC_VOID = 1;
    /** Answers with a future of its own. */
    private static final int PROC_FUTURE = 2;

    private final RpcRdmaStats stats = new RpcRdmaStats();
    private final RpcStats rpcStats = new RpcStats();
    private ResourceLeakDetector.Level level;
    private RpcRdmaResponder responder;
    private EmbeddedChannel ch;

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

    private EmbeddedChannel channel() {
        RpcProgramRegistry registry = new RpcProgramRegistry().registerNull(PROG, VERS)
                .register(PROG, VERS, PROC_VOID, (call, args) -> call.replySuccess(XdrPayload.empty(),
                        call.voidPromise()))
                .register(PROG, VERS, PROC_FUTURE, (call, args) -> call.replySuccess());
        responder = new RpcRdmaResponder(ResponderSetup.of(RpcRdmaConfig.DEFAULT.withGrantBounds(1, 8),
                new InlineThresholds(4096, 4096, false), stats, rpcStats));
        return new EmbeddedChannel(responder, new RpcDispatcher(registry, rpcStats));
    }

    /** Receives an inline call of {@code procedure} and returns the xid of the RDMA_MSG reply it got. */
    private int call(int xid, int procedure) throws Exception {
        byte[] send = callAndSend(xid, procedure);
        ByteBuf b = Unpooled.wrappedBuffer(send);
        RpcRdmaHeader h = new RpcRdmaHeaderDecoder().decode(b);
        assertEquals(RdmaProcedure.RDMA_MSG, h.procedure());
        assertEquals(xid, b.readInt(), "the RPC reply follows inline");
        assertEquals(1, b.readInt(), "REPLY");
        return h.xid();
    }

    /** Receives an inline call of {@code procedure} and returns the bytes of the Send that answered it. */
    private byte[] callAndSend(int xid, int procedure) {
        ByteBuf b = Unpooled.directBuffer();
        RpcRdmaHeaderEncoder.encode(RpcRdmaHeader.msg(xid, 8), b);
        b.writeInt(xid).writeInt(0).writeInt(2).writeInt(PROG).writeInt(VERS).writeInt(procedure);
        b.writeInt(0).writeInt(0).writeInt(0).writeInt(0);
        ch.writeInbound(new RdmaReceive(b, false, 0));
        assertNull(ch.readInbound(), "the dispatcher took the call");
        ByteBuf send = assertInstanceOf(ByteBuf.class, ch.readOutbound(), "a reply was sent");
        try {
            return ByteBufUtil.getBytes(send);
        } finally {
            send.release();
        }
    }

    @Test
    void nullsReplyIsTheSendTheMessageMakes() {
        byte[] direct = callAndSend(7, 0);
        assertEquals(1, responder.directReplies());
        // The same empty SUCCESS written as a message, through the pipeline (a reply with a future).
        byte[] message = callAndSend(7, PROC_FUTURE);
        assertEquals(1, responder.directReplies());
        assertArrayEquals(message, direct);
        assertEquals(28 + 24, direct.length, "RDMA_MSG header and the RPC reply's six words");
    }

    @Test
    void aNullReplyToNoCallInProgressIsLeftToTheMessagesPath() {
        ChannelHandlerContext dispatcher = ch.pipeline().context(RpcDispatcher.class);
        assertFalse(responder.writeEmptySuccess(dispatcher, 99), "no call 99: the message's path logs and fails it");
        assertNull(ch.readOutbound());
        assertEquals(0, responder.directReplies());
    }

    @Test
    void nettysLinkIsReadable() {
        assertTrue(OutboundAdjacency.available(), "without it no reply would take the entry");
    }

    @Test
    void nullAndVoidPromiseRepliesTakeTheEntry() throws Exception {
        assertEquals(1, call(1, 0));
        assertEquals(1, responder.directReplies(), "NULL");
        assertEquals(2, call(2, PROC_VOID));
        assertEquals(2, responder.directReplies(), "a reply with the connection's void promise");
        assertEquals(3, call(3, PROC_FUTURE));
        assertEquals(2, responder.directReplies(), "a reply with a future goes through the pipeline");
        assertNull(ch.readOutbound());
        assertEquals(0, responder.outstandingCalls());
    }

    @Test
    void callsGoStraightToTheDispatcherOnceItRepliedDirectly() throws Exception {
        assertEquals(1, call(1, PROC_FUTURE));
        assertEquals(0, responder.directCalls(), "nothing adopted: no direct reply yet");
        assertEquals(2, call(2, 0));
        assertEquals(0, responder.directCalls(), "that call went through the pipeline; its reply adopted the dispatcher");
        assertEquals(3, call(3, PROC_VOID));
        assertEquals(4, call(4, PROC_FUTURE));
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
        assertEquals(5, call(5, 0));
        assertEquals(2, responder.directCalls());
        assertEquals(1, reads.get(), "the user's handler saw the call");
        ch.pipeline().remove("user");
        assertEquals(6, call(6, 0));
        assertEquals(3, responder.directCalls(), "straight again once it is gone");
        assertEquals(0, responder.outstandingCalls());
    }

    @Test
    void voidPromiseIsTheConnectionsOne() {
        assertNotNull(responder.voidPromise());
        assertTrue(responder.voidPromise().isVoid());
        assertSame(ch, responder.voidPromise().channel());
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
        assertEquals(1, call(1, 0));
        assertEquals(2, call(2, PROC_VOID));
        assertEquals(0, responder.directReplies());
        assertEquals(2, writes.get(), "the user's handler saw both replies");
        ch.pipeline().remove("user");
        assertEquals(3, call(3, 0));
        assertEquals(1, responder.directReplies(), "adjacent again once it is gone");
    }

    @Test
    void noneTakesItWithLeakDetectionOn() throws Exception {
        ch.finishAndReleaseAll();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ch = channel();
        assertEquals(1, call(1, 0));
        assertEquals(2, call(2, PROC_VOID));
        assertEquals(0, responder.directReplies());
    }
}
