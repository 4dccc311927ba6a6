package dev.rpcrdma.oncrpc.server;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.RpcWire;
import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.AuthStat;
import dev.rpcrdma.oncrpc.message.AuthSysCredential;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RejectStat;
import dev.rpcrdma.oncrpc.message.ReplyStat;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.tcp.TcpRpcServerInitializer;
import dev.rpcrdma.testing.EventLoopThread;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server's RFC 5531 §9 answers, through the real TCP pipeline on an EmbeddedChannel. */
class RpcDispatcherTest {

    static final int PROG = 0x2004F001;

    private final RpcStats stats = new RpcStats();
    private final AtomicReference<RpcCallContext> deferred = new AtomicReference<>();
    private final List<RpcCallContext> seen = new ArrayList<>();
    private EmbeddedChannel ch;

    @BeforeEach
    void setUp() {
        RpcProgramRegistry registry = new RpcProgramRegistry()
                .registerNull(PROG, 2)
                .register(PROG, 2, 1, (call, args) -> {
                    ByteBuf data = args.readOpaqueSlice(1024);
                    XdrPayload results = call.newPayload();
                    results.writer().writeOpaque(data);
                    data.release();
                    call.replySuccess(results);
                })
                .register(PROG, 2, 2, (call, args) -> {
                    throw new IllegalStateException("procedure bug (expected by the test)");
                })
                .register(PROG, 2, 3, (call, args) -> deferred.set(call))
                .register(PROG, 2, 4, (call, args) -> {
                    XdrPayload results = call.newPayload();
                    AuthSysCredential sys = call.authSys();
                    results.writer().writeInt(sys == null ? -1 : sys.uid());
                    call.replySuccess(results);
                })
                .register(PROG, 2, 5, (call, args) -> {
                    seen.add(call);
                    XdrPayload results = call.newPayload();
                    results.writer().writeInt(call.xid());
                    call.replySuccess(results, call.voidPromise());
                })
                .registerNull(PROG, 4);
        ch = new EmbeddedChannel(new TcpRpcServerInitializer(new RpcDispatcher(registry, stats)));
    }

    @AfterEach
    void tearDown() {
        ch.finishAndReleaseAll();
    }

    private RpcReply callAndReadReply(ByteBuf message) throws XdrException {
        ch.writeInbound(RpcWire.record(message));
        InboundRpcMessage reply = RpcWire.readReply(ch);
        assertNotNull(reply, "no reply written");
        try {
            return assertInstanceOf(RpcReply.class, reply.header().copy());
        } finally {
            reply.release();
        }
    }

    @Test
    void nullProcedureAnswersSuccess() throws XdrException {
        RpcReply reply = callAndReadReply(RpcWire.call(10, 2, PROG, 2, 0));
        assertEquals(10, reply.xid());
        assertEquals(AcceptStat.SUCCESS, reply.acceptStat());
    }

    @Test
    void echoReturnsTheArguments() throws XdrException {
        ByteBuf call = RpcWire.call(11, 2, PROG, 2, 1);
        new XdrWriter(call).writeOpaque(new byte[] {1, 2, 3, 4, 5});
        ch.writeInbound(RpcWire.record(call));
        InboundRpcMessage reply = RpcWire.readReply(ch);
        try {
            assertTrue(((RpcReply) reply.header()).isSuccess());
            assertEquals(5, reply.body().readOpaque(5).length);
        } finally {
            reply.release();
        }
    }

    @Test
    void unknownProgramIsProgUnavail() throws XdrException {
        assertEquals(AcceptStat.PROG_UNAVAIL, callAndReadReply(RpcWire.call(12, 2, 0x2004F002, 1, 0)).acceptStat());
    }

    @Test
    void unknownVersionIsProgMismatchWithRegisteredRange() throws XdrException {
        RpcReply reply = callAndReadReply(RpcWire.call(13, 2, PROG, 3, 0));
        assertEquals(AcceptStat.PROG_MISMATCH, reply.acceptStat());
        assertEquals(2, reply.mismatchLow());
        assertEquals(4, reply.mismatchHigh());
    }

    @Test
    void unknownProcedureIsProcUnavail() throws XdrException {
        assertEquals(AcceptStat.PROC_UNAVAIL, callAndReadReply(RpcWire.call(14, 2, PROG, 2, 99)).acceptStat());
    }

    @Test
    void argumentsThatDoNotDecodeAreGarbageArgs() throws XdrException {
        // Echo's opaque<1024> declared 2000 long: over its bound.
        ByteBuf overBound = RpcWire.call(15, 2, PROG, 2, 1);
        overBound.writeInt(2000).writeZero(2000);
        assertEquals(AcceptStat.GARBAGE_ARGS, callAndReadReply(overBound).acceptStat());
        // Declared 100 long with 8 bytes left: over the remaining bytes.
        ByteBuf truncated = RpcWire.call(16, 2, PROG, 2, 1);
        truncated.writeInt(100).writeZero(8);
        assertEquals(AcceptStat.GARBAGE_ARGS, callAndReadReply(truncated).acceptStat());
    }

    @Test
    void procedureThatThrowsIsSystemErr() throws XdrException {
        assertEquals(AcceptStat.SYSTEM_ERR, callAndReadReply(RpcWire.call(17, 2, PROG, 2, 2)).acceptStat());
    }

    @Test
    void rpcvers3IsDeniedWithRpcMismatch2To2() throws XdrException {
        RpcReply reply = callAndReadReply(RpcWire.call(18, 3, PROG, 2, 0));
        assertEquals(18, reply.xid());
        assertEquals(ReplyStat.MSG_DENIED, reply.replyStat());
        assertEquals(RejectStat.RPC_MISMATCH, reply.rejectStat());
        assertEquals(2, reply.mismatchLow());
        assertEquals(2, reply.mismatchHigh());
    }

    @Test
    void credentialOver400BytesIsDeniedAuthBadCred() throws XdrException {
        ByteBuf call = Unpooled.buffer();
        new XdrWriter(call).writeInt(19).writeInt(0).writeInt(2).writeInt(PROG).writeInt(2).writeInt(0)
                .writeInt(1).writeInt(404).buffer().writeZero(404);
        new XdrWriter(call).writeInt(0).writeInt(0);
        RpcReply reply = callAndReadReply(call);
        assertEquals(ReplyStat.MSG_DENIED, reply.replyStat());
        assertEquals(RejectStat.AUTH_ERROR, reply.rejectStat());
        assertEquals(AuthStat.AUTH_BADCRED, reply.authStat());
    }

    @Test
    void malformedAuthSysIsDeniedAuthBadCred() throws XdrException {
        ByteBuf call = Unpooled.buffer();
        // AUTH_SYS body of 8 bytes: stamp then a machinename length of 300 (over 255).
        new XdrWriter(call).writeInt(20).writeInt(0).writeInt(2).writeInt(PROG).writeInt(2).writeInt(4)
                .writeInt(1).writeInt(8).writeInt(0).writeInt(300).writeInt(0).writeInt(0);
        RpcReply reply = callAndReadReply(call);
        assertEquals(AuthStat.AUTH_BADCRED, reply.authStat());
    }

    @Test
    void authSysCredentialReachesTheProcedure() throws XdrException {
        ByteBuf call = Unpooled.buffer();
        byte[] cred = new AuthSysCredential(1, "h", 4242, 42).toOpaqueAuth().body();
        new XdrWriter(call).writeInt(21).writeInt(0).writeInt(2).writeInt(PROG).writeInt(2).writeInt(4)
                .writeInt(1).writeOpaque(cred).writeInt(0).writeInt(0);
        ch.writeInbound(RpcWire.record(call));
        InboundRpcMessage reply = RpcWire.readReply(ch);
        try {
            assertEquals(4242, reply.body().readInt());
        } finally {
            reply.release();
        }
    }

    @Test
    void msgType7IsLoggedCountedAndDroppedConnectionStaysOpen() throws XdrException {
        ByteBuf bad = Unpooled.buffer();
        new XdrWriter(bad).writeInt(22).writeInt(7).writeInt(2).writeInt(PROG).writeInt(2).writeInt(0)
                .writeInt(0).writeInt(0).writeInt(0).writeInt(0);
        ch.writeInbound(RpcWire.record(bad));
        assertNull(RpcWire.readReply(ch));
        assertEquals(1, stats.malformedMessages());
        assertTrue(ch.isOpen());
        // The connection still serves.
        assertEquals(AcceptStat.SUCCESS, callAndReadReply(RpcWire.call(23, 2, PROG, 2, 0)).acceptStat());
    }

    @Test
    void truncatedCallHeaderIsDropped() throws XdrException {
        ByteBuf bad = Unpooled.buffer().writeInt(24).writeInt(0).writeInt(2).writeInt(PROG);
        ch.writeInbound(RpcWire.record(bad));
        assertNull(RpcWire.readReply(ch));
        assertEquals(1, stats.malformedMessages());
    }

    @Test
    void replyReceivedByServerIsCountedAndDropped() throws XdrException {
        ByteBuf reply = Unpooled.buffer();
        new XdrWriter(reply).writeInt(25).writeInt(1).writeInt(0).writeInt(0).writeInt(0).writeInt(0);
        ch.writeInbound(RpcWire.record(reply));
        assertNull(RpcWire.readReply(ch));
        assertEquals(1, stats.unexpectedMessages());
    }

    @Test
    void deferredReplyIsSentLaterAndOnlyOnce() throws XdrException {
        ch.writeInbound(RpcWire.record(RpcWire.call(26, 2, PROG, 2, 3)));
        assertNull(RpcWire.readReply(ch));
        RpcCallContext call = deferred.get();
        assertNotNull(call);
        XdrPayload results = call.newPayload();
        results.writer().writeInt(7);
        call.replySuccess(results);
        assertFalse(call.replySuccess().isSuccess());
        InboundRpcMessage reply = RpcWire.readReply(ch);
        try {
            assertEquals(26, reply.header().xid());
            assertEquals(7, reply.body().readInt());
        } finally {
            reply.release();
        }
    }

    /**
     * The allocation-free reply form: written with the connection's void promise, answered once, and a write that
     * fails is dropped without closing the connection (a plain {@code channel().voidPromise()} would fire the
     * failure through the pipeline, and the dispatcher closes on errors).
     */
    @Test
    void aVoidPromiseReplyIsSentOnceAndAFailedOneLeavesTheConnectionOpen() throws XdrException {
        ch.writeInbound(RpcWire.record(RpcWire.call(27, 2, PROG, 2, 3)));
        RpcCallContext call = deferred.get();
        assertSame(call.voidPromise(), call.voidPromise(), "one per connection");
        assertTrue(call.voidPromise().isVoid());
        XdrPayload results = call.newPayload();
        results.writer().writeInt(8);
        call.replySuccess(results, call.voidPromise());
        XdrPayload twice = call.newPayload();
        assertFalse(call.replySuccess(twice, call.voidPromise()).isSuccess(), "a second reply is refused");
        assertEquals(0, twice.refCnt(), "and its results released");
        InboundRpcMessage reply = RpcWire.readReply(ch);
        try {
            assertEquals(27, reply.header().xid());
            assertEquals(8, reply.body().readInt());
        } finally {
            reply.release();
        }
        ch.pipeline().addFirst(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                ReferenceCountUtil.release(msg);
                promise.setFailure(new IOException("link down (expected by the test)"));
            }
        });
        deferred.set(null);
        ch.writeInbound(RpcWire.record(RpcWire.call(28, 2, PROG, 2, 3)));
        deferred.get().replySuccess(XdrPayload.empty(), deferred.get().voidPromise());
        assertTrue(ch.isOpen(), "a reply that could not be written is dropped, the connection stays");
        assertNull(RpcWire.readReply(ch));
    }

    /**
     * A context answered during its procedure on the loop is reused for the next call (no object per synchronous
     * call); one answered later is never reused, so a late reply still goes to its own call. Run on a thread that
     * cleans up its FastThreadLocals, as an event loop does (Netty's Recycler pools only there).
     */
    @Test
    void aContextAnsweredDuringItsProcedureIsReusedAndADeferredOneIsNot() throws Throwable {
        EventLoopThread.run(() -> {
            assertEquals(40, answeredXid(40));
            assertEquals(41, answeredXid(41));
            assertSame(seen.get(0), seen.get(1), "answered in its procedure: reused");
            ch.writeInbound(RpcWire.record(RpcWire.call(42, 2, PROG, 2, 3)));
            RpcCallContext later = deferred.get();
            assertEquals(42, later.xid());
            assertEquals(43, answeredXid(43));
            assertNotSame(later, seen.get(2), "a context not answered yet is never handed to another call");
            later.replySuccess(XdrPayload.empty(), later.voidPromise());
            assertEquals(42, answeredXid(-1), "the late reply answers its own call");
            assertEquals(44, answeredXid(44));
            assertNotSame(later, seen.get(3), "nor one answered after its procedure returned");
            assertTrue(later.isReplied());
            assertEquals(42, later.xid());
        });
    }

    /** Sends procedure 5 with {@code xid} (or nothing, -1) and returns the xid of the next reply written. */
    private int answeredXid(int xid) throws XdrException {
        if (xid >= 0) {
            ch.writeInbound(RpcWire.record(RpcWire.call(xid, 2, PROG, 2, 5)));
        }
        InboundRpcMessage reply = RpcWire.readReply(ch);
        assertNotNull(reply, "no reply written");
        try {
            return reply.header().xid();
        } finally {
            reply.release();
        }
    }
}
