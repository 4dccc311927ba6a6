package dev.rpcrdma.oncrpc;

import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcClientHandler;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.xdr.DdpItem;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contract an RPC-over-RDMA transport relies on: the dispatcher and the client handler work on message
 * objects with no TCP codec in front; a DDP-eligible item stays a separate zero-copy buffer with its XDR position;
 * the reduced stream plus placed data decodes like the inline stream; the call's reply hints reach the transport.
 */
class MessageLevelTransportTest {

    static final int PROG = 0x2004F001;

    @Test
    void dispatcherAnswersMessagesAndKeepsDdpItemsSeparate() throws Exception {
        RpcProgramRegistry registry = new RpcProgramRegistry().register(PROG, 1, 1, (call, args) -> {
            ByteBuf data = args.readDdpOpaque(1 << 20);
            XdrPayload results = call.newPayload();
            results.writer().writeInt(data.readableBytes());
            results.writeDdpOpaque(data);
            call.replySuccess(results);
        });
        EmbeddedChannel ch = new EmbeddedChannel(new RpcDispatcher(registry, new RpcStats()));
        // What an RDMA responder hands up: the reduced inline stream (length word, no data) + the pulled chunk.
        ByteBuf inline = Unpooled.buffer().writeInt(8192);
        ByteBuf chunk = Unpooled.buffer(8192).writeZero(8192).setByte(100, 42);
        Deque<ByteBuf> placed = new ArrayDeque<>(List.of(chunk));
        ch.writeInbound(InboundRpcMessage.of(new RpcCall(7, PROG, 1, 1, OpaqueAuth.NONE), inline, placed));
        OutboundRpcMessage reply = ch.readOutbound();
        try {
            assertEquals(7, reply.header().xid());
            assertTrue(((RpcReply) reply.header()).isSuccess());
            XdrPayload whole = RpcMessageCodec.encode(ch.alloc(), reply);
            try {
                DdpItem item = whole.ddpItems().get(0);
                // The placed buffer travels to the reply without a copy...
                assertSame(chunk, item.data());
                // ... at XDR position: reply header (24 bytes) + int (4) + length word (4).
                assertEquals(RpcMessageCodec.headerLength(reply.header()) + 8, item.position());
                assertEquals(RpcMessageCodec.headerLength(reply.header()) + 8, whole.reducedLength());
            } finally {
                whole.release();
            }
        } finally {
            reply.release();
        }
        ch.finishAndReleaseAll();
    }

    @Test
    void clientHandlerSendsHintsAndDecodesPlacedReplyData() throws Exception {
        EmbeddedChannel ch = new EmbeddedChannel(new RpcClientHandler(new RpcStats(), Duration.ofSeconds(5)));
        RpcClient client = RpcClient.of(ch);
        CompletableFuture<byte[]> result = client.call(PROG, 1, 1, client.newPayload(),
                r -> ByteBufUtil.getBytes(releaseAfterCopy(r.readDdpOpaque(4096))),
                CallOptions.DEFAULT.withReplyHints(4096, 8192));
        OutboundRpcMessage sent = ch.readOutbound();
        RpcCall call = assertInstanceOf(RpcCall.class, sent.header());
        assertEquals(4096, call.maxDdpReplyItem());
        assertEquals(8192, call.maxReplySize());
        sent.release();

        // The responder's reply, as an RDMA requester would reassemble it: reduced stream + Write chunk data.
        XdrPayload results = XdrPayload.newPayload(ch.alloc());
        results.writeDdpOpaque(Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5}));
        OutboundRpcMessage replyMessage = new OutboundRpcMessage(RpcReply.success(call.xid()), results);
        XdrPayload wire = RpcMessageCodec.encode(ch.alloc(), replyMessage);
        replyMessage.release();
        ByteBuf reduced = ch.alloc().buffer();
        wire.writeReduced(reduced);
        ByteBuf writeChunk = wire.ddpItems().get(0).data().retainedDuplicate();
        wire.release();
        ch.writeInbound(RpcMessageCodec.decode(reduced, List.of(writeChunk)));
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, result.get(1, TimeUnit.SECONDS));
        ch.finishAndReleaseAll();
    }

    private static ByteBuf releaseAfterCopy(ByteBuf b) {
        ByteBuf copy = Unpooled.copiedBuffer(b);
        b.release();
        return copy;
    }
}
