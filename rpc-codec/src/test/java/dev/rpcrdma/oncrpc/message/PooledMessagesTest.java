package dev.rpcrdma.oncrpc.message;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-thread pools of the allocation-free path (issue 17): a message and the header it carries are reused after
 * the message's last release, never before; a header kept longer is a {@link RpcMessage#copy() copy}; a pooled
 * header handed to a constructor that keeps it is copied, so no two messages share one.
 */
class PooledMessagesTest {

    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    @Test
    void aDecodedMessageAndItsHeaderAreReusedOnlyAfterTheLastRelease() throws XdrException {
        InboundRpcMessage first = decodeCall(41);
        RpcCall header = assertInstanceOf(RpcCall.class, first.header());
        assertTrue(header.isPooled());
        RpcCall kept = header.copy();
        assertFalse(kept.isPooled());
        assertNotSame(header, kept);
        first.retain();
        first.release();
        // Still held: a second message on this thread gets other objects.
        InboundRpcMessage second = decodeCall(42);
        assertNotSame(first, second);
        assertNotSame(header, second.header());
        assertEquals(41, header.xid());
        first.release();
        second.release();
        // Both went back: the next ones may be the very same objects, with the new call's fields.
        InboundRpcMessage third = decodeCall(43);
        assertEquals(43, third.header().xid());
        assertEquals(100003, ((RpcCall) third.header()).program());
        third.release();
        assertEquals(41, kept.xid(), "a copy is a value: it keeps the first call's fields");
        assertEquals(100003, kept.program());
    }

    @Test
    void aPooledHeaderIsCopiedByTheConstructorsThatKeepIt() throws XdrException {
        InboundRpcMessage in = decodeCall(7);
        RpcMessage pooled = in.header();
        OutboundRpcMessage out = new OutboundRpcMessage(pooled, XdrPayload.empty());
        InboundRpcMessage again = InboundRpcMessage.of(pooled, ALLOC.buffer(0));
        assertNotSame(pooled, out.header());
        assertNotSame(pooled, again.header());
        assertFalse(out.header().isPooled());
        in.release();
        assertEquals(7, out.header().xid());
        assertEquals(7, again.header().xid());
        out.release();
        again.release();
        // A value given to the constructor is kept as it is.
        RpcCall value = new RpcCall(9, 1, 1, 1, OpaqueAuth.NONE);
        OutboundRpcMessage plain = new OutboundRpcMessage(value, XdrPayload.empty());
        assertSame(value, plain.header());
        plain.release();
    }

    @Test
    void newCallAndNewReplyEncodeWhatTheyWereGivenAndReleaseTheirBody() throws XdrException {
        XdrPayload args = XdrPayload.newPayload(ALLOC);
        args.writer().writeInt(5);
        int[] hints = {4096};
        OutboundRpcMessage call = OutboundRpcMessage.newCall(77, 100003, 4, 1, OpaqueAuth.NONE, hints, 8192, args);
        RpcCall header = (RpcCall) call.header();
        assertTrue(header.isPooled());
        assertEquals(4096, header.replyDdpItem(0));
        assertEquals(8192, header.maxReplySize());
        ByteBuf wire = RpcMessageCodec.encodeInline(ALLOC, call);
        call.release();
        assertEquals(0, args.refCnt(), "the message released its body");
        InboundRpcMessage in = RpcMessageCodec.decode(wire);
        try {
            assertEquals(77, in.header().xid());
            assertEquals(5, in.body().readInt());
        } finally {
            in.release();
        }
        OutboundRpcMessage reply = OutboundRpcMessage.newReply(78, AcceptStat.SUCCESS, XdrPayload.empty());
        assertTrue(((RpcReply) reply.header()).isSuccess());
        assertEquals(78, reply.header().xid());
        reply.release();
        XdrPayload results = XdrPayload.newPayload(ALLOC);
        results.writer().writeInt(1);
        assertThrows(IllegalArgumentException.class,
                () -> OutboundRpcMessage.newReply(79, AcceptStat.SYSTEM_ERR, results));
        assertEquals(0, results.refCnt(), "refused results are released");
        assertThrows(IllegalArgumentException.class,
                () -> OutboundRpcMessage.newReply(79, AcceptStat.PROG_MISMATCH, XdrPayload.empty()));
    }

    @Test
    void aPayloadIsReusedEmptyAfterItsLastRelease() {
        XdrPayload p = XdrPayload.newPayload(ALLOC);
        p.writer().writeInt(1);
        p.writeDdpOpaque(ALLOC.buffer(3).writeBytes(new byte[] {1, 2, 3}));
        assertEquals(1, p.ddpItems().size());
        p.release();
        XdrPayload next = XdrPayload.newPayload(ALLOC);
        assertEquals(0, next.inlineLength(), "nothing of the previous use is left");
        assertTrue(next.ddpItems().isEmpty());
        next.writer().writeInt(2);
        assertEquals(4, next.inlineLength());
        next.release();
    }

    /**
     * On a thread that is not Netty's (an application thread making calls), where Netty's Recycler does not pool,
     * payloads come from a small pool shared by such threads: a thousand uses are served by a few objects.
     */
    @Test
    void payloadsMadeOutsideNettysThreadsAreReusedToo() {
        Set<XdrPayload> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < 1000; i++) {
            XdrPayload p = XdrPayload.newPayload(ALLOC);
            p.writer().writeInt(i);
            assertEquals(4, p.inlineLength(), "nothing of a previous use is left");
            distinct.add(p);
            p.release();
        }
        assertTrue(distinct.size() <= 257, distinct.size() + " payload objects for 1000 uses");
    }

    private static InboundRpcMessage decodeCall(int xid) throws XdrException {
        OutboundRpcMessage out = new OutboundRpcMessage(new RpcCall(xid, 100003, 4, 1, OpaqueAuth.NONE),
                XdrPayload.empty());
        ByteBuf wire = RpcMessageCodec.encodeInline(ALLOC, out);
        out.release();
        return RpcMessageCodec.decode(wire);
    }
}
