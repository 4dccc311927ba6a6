package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaChannelOption;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.backchannel.BackwardRequester;
import dev.rpcrdma.handlers.header.RdmaErrorCode;
import dev.rpcrdma.handlers.header.RdmaProcedure;
import dev.rpcrdma.handlers.header.RdmaSegment;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderDecoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.handlers.header.WriteChunk;
import dev.rpcrdma.handlers.responder.RpcRdmaResponder;
import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcBackchannelException;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.testing.Await;
import dev.rpcrdma.testing.BackchannelSuite;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The backchannel suite over RPC-over-RDMA (RFC 8167), plus its RDMA-only rules:
 * backward credits (calls beyond the client's grant wait, none lost), the size limit (min(inline send, inline
 * receive, 4096) - 28), a peer's backward call with chunk lists answered ERR_CHUNK (RFC 8167 §5.3), and one over
 * the size dropping the connection.
 * Run per fabric: {@link SoftwareFabricBackchannelTest} in {@code mvn verify}, {@link NativeFabricBackchannelTest}
 * on Soft-RoCE in the VM stage.
 */
abstract class RpcRdmaBackchannelSuite extends BackchannelSuite {
    static final int BACKWARD_CREDITS = 4;

    final List<Channel> children = new CopyOnWriteArrayList<>();
    final RpcRdmaStats serverRdmaStats = new RpcRdmaStats();
    final RpcRdmaStats clientRdmaStats = new RpcRdmaStats();
    /** The transport headers a {@link #rogue} server received, in order. */
    final BlockingQueue<RpcRdmaHeader> rogueReceived = new LinkedBlockingQueue<>();
    RpcRdmaConfig clientConfig = RpcRdmaConfig.DEFAULT.withBackwardCredits(BACKWARD_CREDITS);

    /** The fabric under test, from the permutation source. */
    final TestFabric testFabric;

    RpcRdmaBackchannelSuite(TestFabric testFabric) {
        this.testFabric = testFabric;
    }

    Fabric fabric() {
        return testFabric.fabric();
    }

    /** The address servers listen on. */
    InetAddress address() {
        return testFabric.address();
    }

    @Override
    @BeforeEach
    protected void start() throws Exception {
        testFabric.setUp(getClass().getSimpleName());
        super.start();
    }

    @Override
    @AfterEach
    protected void stop() throws Exception {
        try {
            super.stop();
        } finally {
            testFabric.tearDown();
        }
    }

    @Override
    protected EventLoopGroup newGroup() {
        return new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(fabric())));
    }

    @Override
    protected Channel startServer(RpcDispatcher dispatcher) throws Exception {
        RpcRdmaServerInitializer init = new RpcRdmaServerInitializer(dispatcher, RpcRdmaConfig.DEFAULT,
                serverRdmaStats).withBackchannel();
        return new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        children.add(ch);
                        ch.pipeline().addLast(init);
                    }
                })
                .bind(new InetSocketAddress(address(), 0)).sync().channel();
    }

    @Override
    protected Channel connect(SocketAddress server, RpcStats stats, RpcDispatcher callbacks) throws Exception {
        RpcRdmaClientInitializer init = new RpcRdmaClientInitializer(stats, clientConfig, clientRdmaStats,
                RpcRdmaClientInitializer.DEFAULT_TIMEOUT);
        return new Bootstrap().group(group).channel(RdmaChannel.class)
                .handler(callbacks == null ? init : init.withCallbacks(callbacks)).connect(server).sync().channel();
    }

    @Override
    protected int expectedMaxBackwardMessage() {
        return 4096 - 28; // RFC 8167 §4.2 / Linux xprt_rdma_bc_maxpayload with 4 KiB inline both ways
    }

    @Override
    protected List<Channel> serverChildren() {
        return children;
    }

    BackwardRequester backwardCaller() {
        return serverConnection.get().pipeline().get(RpcRdmaResponder.class).backward();
    }

    @Test
    void theClientKeepsReceivesPostedForTheBackwardCreditsItGrantsAndTheServerLearnsTheGrant() throws Exception {
        Channel c = client(true);
        createSession(c);
        assertEquals(64 + BACKWARD_CREDITS, ((RdmaChannel) c).postedReceives(),
                "forward receives plus one per backward credit (RFC 8167 §4.3.1)");
        assertEquals(1, backwardCaller().grant(), "one backward call at first");
        callBack(serverConnection.get(), pattern(8, 1), CallOptions.DEFAULT).get(TIMEOUT.toMillis(),
                TimeUnit.MILLISECONDS);
        assertEquals(BACKWARD_CREDITS, backwardCaller().grant(), "the client's grant, from its backward reply");
    }

    @Test
    void backwardCallsBeyondTheClientsGrantWaitInOrderAndNoneIsLost() throws Exception {
        Channel c = client(true);
        createSession(c);
        callBack(serverConnection.get(), pattern(8, 1), CallOptions.DEFAULT).get(TIMEOUT.toMillis(),
                TimeUnit.MILLISECONDS); // learn the grant
        int[] maxSeen = {0};
        List<CompletableFuture<byte[]>> backward = new ArrayList<>();
        serverConnection.get().eventLoop().submit(() -> {
            for (int i = 0; i < 50; i++) {
                backward.add(callBack(serverConnection.get(), pattern(100, i), CallOptions.DEFAULT));
                maxSeen[0] = Math.max(maxSeen[0], backwardCaller().outstanding());
            }
        }).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        for (int i = 0; i < backward.size(); i++) {
            assertArrayEquals(reversed(pattern(100, i)), backward.get(i).get(TIMEOUT.toMillis(),
                    TimeUnit.MILLISECONDS));
        }
        assertEquals(BACKWARD_CREDITS, maxSeen[0], "never more backward calls outstanding than granted");
        assertTrue(serverRdmaStats.backwardQueued() >= 50 - BACKWARD_CREDITS, "the rest queued: "
                + serverRdmaStats.backwardQueued());
        assertEquals(0, clientRdmaStats.backwardViolations());
    }

    @Test
    void aBackwardCallLargerThanTheBackchannelFailsClearlyAndIsNotSent() throws Exception {
        Channel c = client(true);
        createSession(c);
        RpcClient back = RpcClient.of(serverConnection.get());
        dev.rpcrdma.oncrpc.xdr.XdrPayload args = back.newPayload();
        args.writer().writeOpaque(new byte[5000]);
        ExecutionException e = assertThrows(ExecutionException.class, () -> back.call(CB, VERS, CB_ECHO, args,
                r -> r.readOpaque(8192)).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
        assertInstanceOf(RpcBackchannelException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("exceeds what the backchannel carries (4068"),
                e.getCause().getMessage());
        assertEquals(0, clientStats.backwardCallsReceived());
        assertArrayEquals(reversed(pattern(10, 2)), callBack(serverConnection.get(), pattern(10, 2),
                CallOptions.DEFAULT).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS), "the backchannel still works");
    }

    @Test
    void aBackwardCallWithAChunkListIsAnsweredErrChunk() throws Exception {
        Channel c = rogue(ctx -> {
            ByteBuf b = ctx.alloc().directBuffer();
            RpcRdmaHeaderEncoder.encode(RpcRdmaHeader.msg(77, 1, List.of(),
                    List.of(WriteChunk.of(new RdmaSegment(0x1234, 16, 0))), null), b);
            writeCall(b, 77, 0, 0);
            return b;
        }, RpcRdmaConfig.DEFAULT);
        RpcRdmaHeader first = rogueReceived.poll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(first, "the client's forward call");
        assertEquals(RdmaProcedure.RDMA_MSG, first.procedure());
        RpcRdmaHeader answer = rogueReceived.poll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(answer, "the client answered the backward call");
        assertEquals(RdmaProcedure.RDMA_ERROR, answer.procedure(), "RFC 8167 §5.3");
        assertEquals(RdmaErrorCode.ERR_CHUNK, answer.errorCode());
        assertEquals(77, answer.xid());
        assertTrue(c.isActive(), "the connection stays");
        assertEquals(0, clientRdmaStats.backwardViolations());
        assertEquals(1, clientRdmaStats.errorsSent());
        assertEquals(1, clientStats.backwardDrops());
        assertEquals(0, clientStats.backwardCallsReceived());
    }

    @Test
    void aBackwardCallLargerThanTheBackchannelDropsTheConnection() throws Exception {
        // 8 KiB receive buffers, so the message fits the buffer but not the backchannel (4096 - 28).
        Channel c = rogue(ctx -> {
            ByteBuf b = ctx.alloc().directBuffer();
            RpcRdmaHeaderEncoder.encode(RpcRdmaHeader.msg(78, 1), b);
            writeCall(b, 78, CB_ECHO, 5000);
            return b;
        }, RpcRdmaConfig.DEFAULT.withInlineSizes(8192, 8192));
        assertTrue(c.closeFuture().await(TIMEOUT.toMillis()), "the client dropped the connection (RFC 8167 §4.2)");
        assertEquals(1, clientRdmaStats.backwardViolations());
        assertEquals(0, clientStats.backwardCallsReceived());
    }

    @Test
    void moreBackwardCallsThanGrantedDropTheConnection() throws Exception {
        Channel c = rogue(ctx -> {
            ByteBuf b = ctx.alloc().directBuffer();
            for (int i = 0; i <= BACKWARD_CREDITS; i++) { // one more than granted, none answered (CB_HANG)
                ByteBuf one = ctx.alloc().directBuffer();
                RpcRdmaHeaderEncoder.encode(RpcRdmaHeader.msg(100 + i, 1), one);
                writeCall(one, 100 + i, CB_HANG, 0);
                ctx.write(one);
            }
            return b;
        }, RpcRdmaConfig.DEFAULT);
        assertTrue(c.closeFuture().await(TIMEOUT.toMillis()), "backchannel overflow (RFC 8167 §4.1)");
        assertEquals(1, clientRdmaStats.backwardViolations());
        assertEquals(BACKWARD_CREDITS, clientStats.backwardCallsReceived());
    }

    /** An RPC CALL of the callback program: header, AUTH_NONE, then an opaque of {@code argLength} bytes if > 0. */
    static void writeCall(ByteBuf b, int xid, int proc, int argLength) {
        b.writeInt(xid).writeInt(0).writeInt(2).writeInt(CB).writeInt(VERS).writeInt(proc)
                .writeInt(0).writeInt(0).writeInt(0).writeInt(0);
        if (argLength > 0) {
            b.writeInt(argLength).writeZero((argLength + 3) & ~3);
        }
    }

    /**
     * Connects our client (callbacks enabled) to a rogue server that answers the client's first call with what
     * {@code backward} builds (then nothing): returns the client's channel.
     */
    Channel rogue(Function<ChannelHandlerContext, ByteBuf> backward, RpcRdmaConfig config) throws Exception {
        Channel rogueServer = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                .childOption(RdmaChannelOption.MAX_SEND_SIZE, 16384)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    private boolean answered;

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
                        RdmaReceive r = (RdmaReceive) msg;
                        try {
                            rogueReceived.add(new RpcRdmaHeaderDecoder().decode(r.content()));
                            if (answered) {
                                return;
                            }
                            answered = true;
                            ByteBuf b = backward.apply(ctx);
                            if (b.isReadable()) {
                                ctx.write(b);
                            } else {
                                b.release();
                            }
                            ctx.flush();
                        } finally {
                            r.release();
                        }
                    }
                })
                .bind(new InetSocketAddress(address(), 0)).sync().channel();
        clients.add(rogueServer);
        clientConfig = config.withBackwardCredits(BACKWARD_CREDITS);
        Channel c = connect(rogueServer.localAddress(), clientStats, callbacks(clientStats));
        clients.add(c);
        RpcBackchannel.of(c).enable();
        RpcClient.of(c).callNull(FORE, VERS); // answered by the rogue with a backward message
        return c;
    }
}
