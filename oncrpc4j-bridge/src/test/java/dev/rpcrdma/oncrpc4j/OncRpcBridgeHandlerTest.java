package dev.rpcrdma.oncrpc4j;

import dev.rpcrdma.handlers.ByteFramingEntry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthType;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.CompletionHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bridge's handler on its own: a call with the common header (RPC version 2, empty AUTH_NONE credential and
 * verifier) is taken without oncrpc4j's {@code accept()} into the same {@code RpcCall} state; any other header goes
 * through {@code accept()}; the program last found serves the next call to it and never another program's; the
 * reply is the Xdr's own heap bytes, written into the byte framing's entry where it takes it.
 */
class OncRpcBridgeHandlerTest {
    private static final int PROG_A = 0x20000101;
    private static final int PROG_B = 0x20000102;
    private static final int VERS = 1;

    private final List<RpcCall> seen = new ArrayList<>();
    private final EmbeddedChannel ch = new InetChannel(new OncRpcBridgeHandler(Map.of(
            new OncRpcProgram(PROG_A, VERS), program(1000),
            new OncRpcProgram(PROG_B, VERS), program(2000)), null));

    /** Answers its argument plus {@code offset}. */
    private RpcDispatchable program(int offset) {
        return call -> {
            seen.add(call);
            XdrInt arg = new XdrInt();
            call.retrieveCall(arg);
            call.reply(new XdrInt(arg.intValue() + offset));
        };
    }

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
    }

    /** An EmbeddedChannel with internet addresses, as oncrpc4j's transport needs them. */
    private static final class InetChannel extends EmbeddedChannel {
        InetChannel(ChannelHandler... handlers) {
            super(handlers);
        }

        @Override
        protected SocketAddress localAddress0() {
            return new InetSocketAddress("127.0.0.1", 2049);
        }

        @Override
        protected SocketAddress remoteAddress0() {
            return new InetSocketAddress("127.0.0.1", 900);
        }
    }

    private static ByteBuf call(int xid, int rpcvers, int prog, int proc, int[] credAndVerf, int arg) {
        return call(xid, rpcvers, prog, VERS, proc, credAndVerf, arg);
    }

    private static ByteBuf call(int xid, int rpcvers, int prog, int vers, int proc, int[] credAndVerf, int arg) {
        ByteBuf b = Unpooled.buffer();
        b.writeInt(xid).writeInt(0).writeInt(rpcvers).writeInt(prog).writeInt(vers).writeInt(proc);
        for (int w : credAndVerf) {
            b.writeInt(w);
        }
        return b.writeInt(arg);
    }

    private static final int[] NONE = {0, 0, 0, 0};

    /** The reply's words (the message owned and released here). */
    private int[] reply() {
        ByteBuf r = assertInstanceOf(ByteBuf.class, ch.readOutbound(), "a reply was written");
        try {
            assertTrue(r.hasArray(), "the Xdr's heap bytes, not a copy into a pooled buffer");
            int[] words = new int[r.readableBytes() / 4];
            for (int i = 0; i < words.length; i++) {
                words[i] = r.getInt(r.readerIndex() + 4 * i);
            }
            return words;
        } finally {
            r.release();
        }
    }

    @Test
    void aPlainCallIsTheCallAcceptMakes() {
        ch.writeInbound(call(7, 2, PROG_A, 3, NONE, 5));
        // xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier (flavor, length 0), SUCCESS, the result
        assertEquals(List.of(7, 1, 0, 0, 0, 0, 1005), List.of(box(reply())));
        RpcCall c = seen.get(0);
        assertEquals(PROG_A, c.getProgram());
        assertEquals(VERS, c.getProgramVersion());
        assertEquals(3, c.getProcedure());
        assertEquals(7, c.getXid());
        RpcAuthTypeNone none = assertInstanceOf(RpcAuthTypeNone.class, c.getCredential());
        assertEquals(RpcAuthType.NONE, none.type());
        assertEquals(RpcAuthType.NONE, none.getVerifier().getType());
        assertEquals(0, none.getVerifier().getBody().length);
        assertTrue(c.toString().startsWith("RPCv2 call"), "the RPC version is set as accept() sets it");
    }

    @Test
    void otherHeadersGoThroughAccept() {
        // AUTH_NONE with a body: accepted by oncrpc4j's accept(), body read past
        ch.writeInbound(call(1, 2, PROG_A, 1, new int[] {0, 4, 0xabcdef01, 0, 0}, 1));
        assertEquals(1001, reply()[6]);
        assertInstanceOf(RpcAuthTypeNone.class, seen.get(0).getCredential());
        // AUTH_SYS (stamp, empty machine name, uid, gid, no gids), AUTH_NONE verifier
        ch.writeInbound(call(2, 2, PROG_A, 1, new int[] {1, 20, 0, 0, 1000, 100, 0, 0, 0}, 2));
        assertEquals(1002, reply()[6]);
        assertInstanceOf(RpcAuthTypeUnix.class, seen.get(1).getCredential());
        // RPC version 3: oncrpc4j's RPC_MISMATCH (MSG_DENIED; its mismatch info as accept() makes it), no program run
        ch.writeInbound(call(3, 3, PROG_A, 1, NONE, 3));
        int[] mismatch = reply();
        assertEquals(6, mismatch.length);
        assertEquals(List.of(3, 1, 1, 0), List.of(box(mismatch)).subList(0, 4));
        assertEquals(2, seen.size());
    }

    @Test
    void theProgramLastFoundServesOnlyItsOwnCalls() {
        ch.writeInbound(call(1, 2, PROG_A, 1, NONE, 1));
        ch.writeInbound(call(2, 2, PROG_A, 1, NONE, 2));
        ch.writeInbound(call(3, 2, PROG_B, 1, NONE, 3));
        ch.writeInbound(call(4, 2, PROG_A + 7, 1, NONE, 4));
        ch.writeInbound(call(5, 2, PROG_B, VERS + 1, 1, NONE, 5));
        assertEquals(1001, reply()[6]);
        assertEquals(1002, reply()[6]);
        assertEquals(2003, reply()[6]);
        assertEquals(List.of(4, 1, 0, 0, 0, 1), List.of(box(reply())), "PROG_UNAVAIL");
        assertEquals(List.of(5, 1, 0, 0, 0, 1), List.of(box(reply())), "PROG_UNAVAIL for another version");
        assertNull(ch.readOutbound());
        assertEquals(3, seen.size());
        assertSame(seen.get(0).getTransport(), seen.get(2).getTransport());
    }

    /** A framing handler below the bridge that takes replies through the entry when {@link #take} says so. */
    private static final class FakeEntry extends ChannelOutboundHandlerAdapter implements ByteFramingEntry {
        boolean take;
        final List<ByteBuf> taken = new ArrayList<>();

        @Override
        public boolean writeAndFlush(ChannelHandlerContext from, ByteBuf msg, ChannelPromise promise) {
            if (!take) {
                return false;
            }
            taken.add(msg);
            promise.setSuccess();
            return true;
        }
    }

    @Test
    void repliesGoThroughTheFramingsEntryWhereItTakesThem() {
        FakeEntry entry = new FakeEntry();
        List<Integer> sent = new ArrayList<>();
        EmbeddedChannel c = new InetChannel(entry, new OncRpcBridgeHandler(Map.of(new OncRpcProgram(PROG_A, VERS),
                call -> {
                    call.retrieveCall(new XdrInt());
                    call.reply(XdrVoid.XDR_VOID);
                }), null));
        try {
            RpcTransport t = c.pipeline().get(OncRpcBridgeHandler.class).transport();
            entry.take = true;
            c.writeInbound(call(1, 2, PROG_A, 0, NONE, 0));
            assertEquals(1, entry.taken.size(), "the reply went into the entry");
            assertNull(c.readOutbound(), "not through the pipeline");
            assertEquals(1, entry.taken.get(0).getInt(entry.taken.get(0).readerIndex()));
            entry.taken.remove(0).release();
            entry.take = false;
            c.writeInbound(call(2, 2, PROG_A, 0, NONE, 0));
            assertEquals(0, entry.taken.size());
            ByteBuf r = assertInstanceOf(ByteBuf.class, c.readOutbound(), "refused by the entry: the pipeline");
            assertEquals(2, r.getInt(r.readerIndex()));
            r.release();
            // A send's completion handler hears of the write either way.
            for (boolean take : new boolean[] {true, false}) {
                entry.take = take;
                Xdr xdr = new Xdr(32);
                xdr.beginEncoding();
                xdr.xdrEncodeInt(9);
                xdr.endEncoding();
                t.send(xdr, null, new CompletionHandler<Integer, Object>() {
                    @Override
                    public void completed(Integer result, Object attachment) {
                        sent.add(result);
                    }

                    @Override
                    public void failed(Throwable exc, Object attachment) {
                        sent.add(-1);
                    }
                });
            }
            assertEquals(List.of(4, 4), sent);
            assertEquals(1, entry.taken.size());
            entry.taken.forEach(ByteBuf::release);
        } finally {
            c.finishAndReleaseAll();
        }
    }

    private static Integer[] box(int[] words) {
        Integer[] b = new Integer[words.length];
        for (int i = 0; i < words.length; i++) {
            b[i] = words[i];
        }
        return b;
    }
}
