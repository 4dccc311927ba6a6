package dev.rpcrdma.handlers;

import dev.rpcrdma.handlers.requester.RequesterSetup;
import dev.rpcrdma.handlers.responder.ResponderSetup;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.handlers.header.RdmaErrorCode;
import dev.rpcrdma.handlers.header.RdmaProcedure;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderDecoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.handlers.negotiation.RpcRdmaPrivateData;
import dev.rpcrdma.handlers.requester.RpcRdmaRequester;
import dev.rpcrdma.handlers.responder.RpcRdmaResponder;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcCallFailedEvent;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcClientHandler;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The handlers reach the transport only through {@code RdmaConnection}: over an {@code EmbeddedChannel} a
 * {@link FakeRdmaConnection} stands in for the RDMA channel (negotiation from its private data, grants bounded by
 * its posted receives, writability through it), and an RDMA_ERROR reaches the RPC layer exactly once.
 */
class RdmaConnectionSeamTest {
    /** Replies that fit the 1024-byte threshold: these tests' calls offer no Reply chunk unless they say so. */
    static final int INLINE_REPLIES = 512;

    static final int PROG = 0x20000123;

    /** Counts {@link RpcCallFailedEvent}s on their way up and passes them on. */
    static final class EventCounter extends ChannelInboundHandlerAdapter {
        final List<RpcCallFailedEvent> seen = new ArrayList<>();
        final List<Throwable> exceptions = new ArrayList<>();

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof RpcCallFailedEvent) {
                seen.add((RpcCallFailedEvent) evt);
            }
            ctx.fireUserEventTriggered(evt);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            exceptions.add(cause);
            ctx.fireExceptionCaught(cause);
        }
    }

    static ByteBuf encode(RpcRdmaHeader header) {
        ByteBuf b = Unpooled.directBuffer();
        RpcRdmaHeaderEncoder.encode(header, b);
        return b;
    }

    @Test
    void rdmaErrorReachesRpcClientExactlyOnceAndCreditsToggleWritabilityThroughTheConnection() throws Exception {
        FakeRdmaConnection connection = new FakeRdmaConnection();
        RpcRdmaStats stats = new RpcRdmaStats();
        RpcStats rpcStats = new RpcStats();
        RpcRdmaRequester requester = new RpcRdmaRequester(RequesterSetup.of(RpcRdmaConfig.DEFAULT.withMaxRequests(4)
                .withMaxReplySize(INLINE_REPLIES), stats, rpcStats)
                .withThresholds(new InlineThresholds(1024, 1024, true)).withConnection(connection));
        EventCounter counter = new EventCounter();
        EmbeddedChannel ch = new EmbeddedChannel(requester, counter,
                new RpcClientHandler(rpcStats, Duration.ofSeconds(30)));
        connection.attach(ch);
        try {
            RpcClient client = RpcClient.of(ch);
            List<CompletableFuture<Integer>> calls = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                XdrPayload args = client.newPayload();
                args.writer().writeInt(i);
                calls.add(client.call(PROG, 1, 1, args, r -> r.readInt(), CallOptions.DEFAULT));
            }
            ch.runPendingTasks();
            // One credit before the first reply (RFC 8166 §3.3.3): the second call waits, the channel is not writable.
            assertEquals(List.of(false), connection.writabilityChanges);
            assertTrue(!ch.isWritable());
            ByteBuf send = ch.readOutbound();
            int xid;
            try {
                xid = new RpcRdmaHeaderDecoder().decode(send).xid();
            } finally {
                send.release();
            }
            ch.writeInbound(new RdmaReceive(encode(RpcRdmaHeader.errChunk(xid, 4)), false, 0));
            Throwable cause = assertThrows(ExecutionException.class, () -> calls.get(0).get(1, TimeUnit.SECONDS))
                    .getCause();
            RpcRdmaErrorException e = assertInstanceOf(RpcRdmaErrorException.class, cause);
            assertEquals(RdmaErrorCode.ERR_CHUNK, e.code());
            assertEquals(1, counter.seen.size(), "one signal for one RDMA_ERROR");
            assertTrue(counter.exceptions.isEmpty());
            assertEquals(1, stats.errorsReceived());
            // The credit came back: the queued call went out and the channel is writable again.
            assertEquals(List.of(false, true), connection.writabilityChanges);
            assertTrue(ch.isWritable());
            ByteBuf second = ch.readOutbound();
            second.release();
            assertEquals(1, requester.outstandingCalls());
            assertEquals(0, connection.memoryRequests, "inline calls touch no memory");
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void requesterNegotiatesFromTheConnectionsPeerPrivateData() {
        RpcRdmaPrivateData local = RpcRdmaPrivateData.of(true, 8192, 8192);
        RpcRdmaPrivateData peer = RpcRdmaPrivateData.of(true, 4096, 16384);
        FakeRdmaConnection connection = new FakeRdmaConnection().peerPrivateData(peer.encode());
        RpcRdmaRequester requester = new RpcRdmaRequester(RequesterSetup.of(RpcRdmaConfig.DEFAULT,
                new RpcRdmaStats(), new RpcStats()).withNegotiation(local).withConnection(connection));
        EmbeddedChannel ch = new EmbeddedChannel(requester);
        try {
            assertEquals(InlineThresholds.negotiate(local, peer), requester.thresholds());
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void responderGrantsNoMoreThanTheConnectionsPostedReceives() throws Exception {
        FakeRdmaConnection connection = new FakeRdmaConnection().postedReceives(3);
        EmbeddedChannel ch = new EmbeddedChannel(new RpcRdmaResponder(ResponderSetup.of(
                RpcRdmaConfig.DEFAULT.withGrantBounds(1, 8), new InlineThresholds(4096, 4096, false),
                new RpcRdmaStats(), new RpcStats()).withConnection(connection)));
        try {
            int xid = 0x0badcafe;
            ByteBuf call = encode(RpcRdmaHeader.msg(xid, 8));
            call.writeInt(xid).writeInt(0).writeInt(2).writeInt(PROG).writeInt(1).writeInt(1);
            call.writeInt(0).writeInt(0).writeInt(0).writeInt(0);
            ch.writeInbound(new RdmaReceive(call, false, 0));
            InboundRpcMessage m = ch.readInbound();
            m.release();
            ch.writeOneOutbound(new OutboundRpcMessage(RpcReply.success(xid), XdrPayload.newPayload(ch.alloc())));
            ch.flushOutbound();
            ByteBuf reply = ch.readOutbound();
            try {
                RpcRdmaHeader h = new RpcRdmaHeaderDecoder().decode(reply);
                assertEquals(RdmaProcedure.RDMA_MSG, h.procedure());
                assertEquals(3, h.credits(), "asked 8, bounds 1..8, 3 receives posted");
            } finally {
                reply.release();
            }
        } finally {
            ch.finishAndReleaseAll();
        }
    }
}
