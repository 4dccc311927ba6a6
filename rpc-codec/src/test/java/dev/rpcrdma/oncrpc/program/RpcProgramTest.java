package dev.rpcrdma.oncrpc.program;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.BlockingRpcClient;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcReplyException;
import dev.rpcrdma.oncrpc.client.RpcReplyTooLargeException;
import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcServerInitializer;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Typed programs over TCP: declared once, served and called async and blocking; blocking procedures off the loop. */
class RpcProgramTest {

    static final RpcProcedureSpec<byte[], byte[]> ECHO =
            RpcProcedureSpec.of(1, "ECHO", XdrCodec.opaque(1 << 20), XdrCodec.ddpOpaque(1 << 20))
                    .withMaxReplySize((1 << 20) + 512);
    static final RpcProcedureSpec<Integer, String> THREAD =
            RpcProcedureSpec.of(2, "THREAD", XdrCodec.INT, XdrCodec.string(256)).blocking();
    static final RpcProcedureSpec<Void, Void> FAIL = RpcProcedureSpec.of(3, "FAIL", XdrCodec.VOID, XdrCodec.VOID);
    static final RpcProcedureSpec<Integer, Long> LATER = RpcProcedureSpec.of(4, "LATER", XdrCodec.INT, XdrCodec.HYPER);
    static final RpcProcedureSpec<byte[], byte[]> SMALL =
            RpcProcedureSpec.of(5, "SMALL", XdrCodec.opaque(1 << 20), XdrCodec.opaque(1 << 20)).withMaxReplySize(512);
    static final RpcProcedureSpec<byte[], Void> PUT =
            RpcProcedureSpec.of(6, "PUT", XdrCodec.opaque(2000), XdrCodec.VOID);
    static final RpcProgram PROGRAM = RpcProgram.of(0x2004F0C0, 1, "typed", ECHO, THREAD, FAIL, LATER, SMALL, PUT);

    EventLoopGroup group;
    ExecutorService executor;
    Channel server;
    RpcClient client;

    @BeforeEach
    void start() throws Exception {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        executor = Executors.newFixedThreadPool(2, r -> new Thread(r, "blocking-procedures"));
        RpcProgramRegistry registry = PROGRAM.service()
                .implement(ECHO, (call, data) -> data)
                .implement(THREAD, (call, n) -> {
                    assertTrue(!call.channel().eventLoop().inEventLoop(), "a blocking procedure runs off the loop");
                    Thread.sleep(n);
                    return Thread.currentThread().getName();
                })
                .implement(FAIL, (call, v) -> {
                    throw new IllegalStateException("expected by the test");
                })
                .implementAsync(LATER, (call, n) -> n < 0
                        ? CompletableFuture.failedFuture(new IllegalArgumentException("expected by the test"))
                        : CompletableFuture.supplyAsync(() -> n * 1_000_000_000L, CompletableFuture.delayedExecutor(
                                20, TimeUnit.MILLISECONDS)))
                .implement(SMALL, (call, data) -> data)
                .implement(PUT, (call, data) -> null)
                .executor(executor)
                .build()
                .registerInto(new RpcProgramRegistry());
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new TcpRpcServerInitializer(new RpcDispatcher(registry, new RpcStats())))
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        client = RpcClient.of(new Bootstrap().group(group).channel(NioSocketChannel.class)
                .handler(new TcpRpcClientInitializer()).connect(server.localAddress()).sync().channel());
    }

    @AfterEach
    void stop() throws Exception {
        client.channel().close().sync();
        server.close().sync();
        executor.shutdownNow();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void roundTripsAsyncAndBlocking() throws Exception {
        byte[] data = new byte[300_000];
        data[7] = 7;
        assertArrayEquals(data, PROGRAM.call(client, ECHO, data).get(10, TimeUnit.SECONDS));
        assertArrayEquals(data, PROGRAM.callAndWait(client, ECHO, data));
        client.callNull(PROGRAM.program(), PROGRAM.version()).get(10, TimeUnit.SECONDS);
        try (BlockingRpcClient blocking = BlockingRpcClient.connect(
                new Bootstrap().channel(NioSocketChannel.class).handler(new TcpRpcClientInitializer()),
                NioIoHandler.newFactory(), (InetSocketAddress) server.localAddress(), Duration.ofSeconds(10))) {
            assertArrayEquals(data, PROGRAM.call(blocking, ECHO, data));
            assertEquals("blocking-procedures", PROGRAM.call(blocking, THREAD, 1));
        }
    }

    @Test
    void aReplyOverTheDeclaredMaximumFailsAsOverRdma() throws Exception {
        // withMaxReplySize(512) means the same over TCP as over RPC-over-RDMA (where the reply would not fit the
        // Reply chunk the call offers): the call fails naming the limit and the settings that raise it.
        assertEquals(400, PROGRAM.call(client, SMALL, new byte[400]).get(10, TimeUnit.SECONDS).length);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> PROGRAM.call(client, SMALL, new byte[600]).get(10, TimeUnit.SECONDS));
        RpcReplyTooLargeException tooLarge = assertInstanceOf(RpcReplyTooLargeException.class, e.getCause());
        assertEquals(512, tooLarge.maxReplySize());
        assertTrue(tooLarge.replySize() > 600, tooLarge.getMessage());
        assertTrue(tooLarge.getMessage().contains("maximum reply size of 512 bytes")
                && tooLarge.getMessage().contains("CallOptions.withMaxReplySize(n)")
                && tooLarge.getMessage().contains("RpcProcedureSpec maxReplySize"), tooLarge.getMessage());
        // The connection goes on; the blocking client checks the same.
        assertEquals(400, PROGRAM.call(client, SMALL, new byte[400]).get(10, TimeUnit.SECONDS).length);
        try (BlockingRpcClient blocking = BlockingRpcClient.connect(
                new Bootstrap().channel(NioSocketChannel.class).handler(new TcpRpcClientInitializer()),
                NioIoHandler.newFactory(), (InetSocketAddress) server.localAddress(), Duration.ofSeconds(10))) {
            assertThrows(RpcReplyTooLargeException.class, () -> PROGRAM.call(blocking, SMALL, new byte[600]));
            assertEquals(400, PROGRAM.call(blocking, SMALL, new byte[400]).length);
        }
    }

    @Test
    void anArgumentOverTheDeclaredLimitNamesTheProcedureTheLimitAndTheSize() throws Exception {
        // The typed client does not send it: the server would answer GARBAGE_ARGS.
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> PROGRAM.call(client, PUT, new byte[3000]).get(10, TimeUnit.SECONDS));
        XdrException encode = assertInstanceOf(XdrException.class, e.getCause());
        assertEquals("the arguments of typed PUT (procedure 6) do not encode: opaque<2000> of length 3000, over its"
                + " bound 2000", encode.getMessage());
        // A client without the declaration sends it: GARBAGE_ARGS, and the exception names the call and its size.
        XdrPayload args = client.newPayload();
        args.writer().writeOpaque(new byte[3000]);
        ExecutionException garbage = assertThrows(ExecutionException.class, () -> client.call(PROGRAM.program(),
                PROGRAM.version(), PUT.number(), args, r -> null).get(10, TimeUnit.SECONDS));
        RpcReplyException reply = assertInstanceOf(RpcReplyException.class, garbage.getCause());
        assertEquals(AcceptStat.GARBAGE_ARGS, reply.reply().acceptStat());
        assertTrue(reply.getMessage().contains("could not decode the 3004 bytes of arguments of program 0x2004f0c0"
                + " version 1 procedure 6") && reply.getMessage().contains("the server logs the procedure, its"
                + " limit and the size"), reply.getMessage());
        assertEquals(null, PROGRAM.call(client, PUT, new byte[2000]).get(10, TimeUnit.SECONDS));
    }

    @Test
    void blockingProceduresRunOnTheExecutorAndRepliesStillArrive() throws Exception {
        assertEquals("blocking-procedures", PROGRAM.call(client, THREAD, 20).get(10, TimeUnit.SECONDS));
    }

    @Test
    void asyncImplementationsAnswerWhenTheirStageCompletes() throws Exception {
        assertEquals(3_000_000_000L, PROGRAM.call(client, LATER, 3).get(10, TimeUnit.SECONDS));
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> PROGRAM.call(client, LATER, -1).get(10, TimeUnit.SECONDS));
        assertEquals(AcceptStat.SYSTEM_ERR,
                assertInstanceOf(RpcReplyException.class, e.getCause()).reply().acceptStat());
    }

    @Test
    void aFailingImplementationAnswersSystemErr() throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> PROGRAM.call(client, FAIL, null).get(10, TimeUnit.SECONDS));
        assertEquals(AcceptStat.SYSTEM_ERR,
                assertInstanceOf(RpcReplyException.class, e.getCause()).reply().acceptStat());
    }

    @Test
    void declarationsAreChecked() {
        RpcProcedureSpec<Void, Void> other = RpcProcedureSpec.of(1, "OTHER", XdrCodec.VOID, XdrCodec.VOID);
        assertThrows(IllegalArgumentException.class, () -> RpcProgram.of(1, 1, "twice", ECHO, other));
        assertThrows(IllegalArgumentException.class, () -> PROGRAM.call(client, other, null));
        assertThrows(IllegalStateException.class, () -> PROGRAM.service().implement(ECHO, (c, d) -> d).build());
        assertThrows(IllegalStateException.class, () -> PROGRAM.service().implement(ECHO, (c, d) -> d)
                .implement(THREAD, (c, n) -> "").implement(FAIL, (c, v) -> null)
                .implementAsync(LATER, (c, n) -> null).build());
    }
}
