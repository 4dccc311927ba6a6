package dev.rpcrdma.testing;

import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcBackchannelException;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcConnectionClosedException;
import dev.rpcrdma.oncrpc.client.RpcReplyDecoder;
import dev.rpcrdma.oncrpc.client.RpcTimeoutException;
import dev.rpcrdma.oncrpc.message.AuthSysCredential;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.server.RpcCallContext;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bi-directional RPC on one connection (the NFSv4.1 callback pattern, RFC 5661 §2.10.3.1), written once against
 * the transport-neutral API and run per transport by subclasses: TCP in rpc-codec, RPC-over-RDMA on the software
 * fabric and on Soft-RoCE in rpcrdma-handlers. The client serves a callback program (0x40000000, as the Linux NFS
 * client's) and enables its backchannel before it "creates a session" (a forward call that makes the server enable
 * its side, as CREATE_SESSION with CONN_BACK_CHAN does); the server then calls back on the same connection while
 * forward calls continue.
 */
@ExtendWith(LeakDetectionExtension.class)
public abstract class BackchannelSuite {
    public static final int FORE = 0x2004F0B0;
    public static final int CB = 0x40000000;
    public static final int VERS = 1;
    /** Forward: the server enables its side of the backchannel (CREATE_SESSION-like); returns its size limit. */
    public static final int CREATE_SESSION = 1;
    /** Forward: echo the opaque argument. */
    public static final int ECHO = 2;
    /** Forward: the server calls back CB_ECHO with the argument and returns the client's answer. */
    public static final int CALL_ME_BACK = 3;
    /** Callback: the argument reversed. */
    public static final int CB_ECHO = 1;
    /** Callback: never answered (held until the test ends). */
    public static final int CB_HANG = 2;
    /** Callback: returns the credential of the call (its opaque_auth). */
    public static final int CB_WHO = 3;
    protected static final Duration TIMEOUT = Duration.ofSeconds(20);

    protected EventLoopGroup group;
    protected final RpcStats serverStats = new RpcStats();
    protected final RpcStats clientStats = new RpcStats();
    protected Channel server;
    protected final List<Channel> clients = new ArrayList<>();
    /** The server side of the last connection that "created a session". */
    protected final AtomicReference<Channel> serverConnection = new AtomicReference<>();
    private final Queue<RpcCallContext> hanging = new ConcurrentLinkedQueue<>();

    /** An event-loop group of the transport. */
    protected abstract EventLoopGroup newGroup();

    /** Starts a server with a backchannel serving {@code dispatcher}; returns its channel. */
    protected abstract Channel startServer(RpcDispatcher dispatcher) throws Exception;

    /** Connects a client with counters {@code stats}, serving {@code callbacks} (null: no callback service). */
    protected abstract Channel connect(SocketAddress server, RpcStats stats, RpcDispatcher callbacks) throws Exception;

    /** The largest backward message the transport should report on a connection made by {@link #connect}. */
    protected abstract int expectedMaxBackwardMessage();

    @BeforeEach
    protected void start() throws Exception {
        group = newGroup();
        RpcProgramRegistry fore = new RpcProgramRegistry().registerNull(FORE, VERS)
                .register(FORE, VERS, CREATE_SESSION, (call, args) -> {
                    RpcBackchannel b = call.backchannel();
                    b.enable();
                    serverConnection.set(call.channel());
                    XdrPayload results = call.newPayload();
                    results.writer().writeInt(b.maxMessageSize());
                    call.replySuccess(results);
                })
                .register(FORE, VERS, ECHO, (call, args) -> {
                    byte[] data = args.readOpaque(1 << 20);
                    XdrPayload results = call.newPayload();
                    results.writer().writeOpaque(data);
                    call.replySuccess(results);
                })
                .register(FORE, VERS, CALL_ME_BACK, (call, args) -> {
                    byte[] data = args.readOpaque(4096);
                    RpcClient back = call.callback();
                    XdrPayload cbArgs = back.newPayload();
                    cbArgs.writer().writeOpaque(data);
                    back.call(CB, VERS, CB_ECHO, cbArgs, r -> r.readOpaque(4096)).whenComplete((answer, failure) -> {
                        if (failure != null) {
                            call.replyError(dev.rpcrdma.oncrpc.message.AcceptStat.SYSTEM_ERR);
                            return;
                        }
                        XdrPayload results = call.newPayload();
                        results.writer().writeOpaque(answer);
                        call.replySuccess(results);
                    });
                });
        server = startServer(new RpcDispatcher(fore, serverStats));
    }

    @AfterEach
    protected void stop() throws Exception {
        for (Channel c : clients) {
            c.close().await(TIMEOUT.toMillis());
        }
        RpcCallContext c;
        while ((c = hanging.poll()) != null) {
            c.replySuccess(); // (the connection is gone: logged and dropped)
        }
        if (server != null) {
            server.close().await(TIMEOUT.toMillis());
        }
        if (group != null) {
            assertTrue(group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(TIMEOUT.toMillis()));
        }
    }

    protected RpcDispatcher callbacks(RpcStats stats) {
        return new RpcDispatcher(new RpcProgramRegistry().registerNull(CB, VERS)
                .register(CB, VERS, CB_ECHO, (call, args) -> {
                    byte[] data = args.readOpaque(4096);
                    byte[] reversed = new byte[data.length];
                    for (int i = 0; i < data.length; i++) {
                        reversed[i] = data[data.length - 1 - i];
                    }
                    XdrPayload results = call.newPayload();
                    results.writer().writeOpaque(reversed);
                    call.replySuccess(results);
                })
                .register(CB, VERS, CB_HANG, (call, args) -> hanging.add(call))
                .register(CB, VERS, CB_WHO, (call, args) -> {
                    XdrPayload results = call.newPayload();
                    call.call().credential().encode(results.writer());
                    call.replySuccess(results);
                }), stats);
    }

    protected Channel client(boolean callbackService) throws Exception {
        Channel c = connect(server.localAddress(), clientStats, callbackService ? callbacks(clientStats) : null);
        clients.add(c);
        return c;
    }

    /** Enables the client's side, then "creates a session": the server enables its side. Returns the server's limit. */
    protected int createSession(Channel c) throws Exception {
        RpcBackchannel.of(c).enable();
        RpcClient client = RpcClient.of(c);
        return client.call(FORE, VERS, CREATE_SESSION, client.newPayload(), r -> r.readInt())
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    protected static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7);
        }
        return b;
    }

    protected static byte[] reversed(byte[] b) {
        byte[] r = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            r[i] = b[b.length - 1 - i];
        }
        return r;
    }

    /** A backward CB_ECHO from the server side of {@code serverSide}. */
    protected static CompletableFuture<byte[]> callBack(Channel serverSide, byte[] data, CallOptions options) {
        RpcClient back = RpcClient.of(serverSide);
        XdrPayload args = back.newPayload();
        args.writer().writeOpaque(data);
        return back.call(CB, VERS, CB_ECHO, args, r -> r.readOpaque(4096), options);
    }

    @Test
    public void bothSidesReadTheBackchannelSizeAndOnlyTheServerCallsBack() throws Exception {
        Channel c = client(true);
        RpcBackchannel mine = RpcBackchannel.of(c);
        assertNotNull(mine, "the client initializer installed a callback service");
        assertEquals(RpcBackchannel.Role.CALLBACK_SERVICE, mine.role());
        assertEquals(expectedMaxBackwardMessage(), mine.maxMessageSize(),
                "the size limit is known once connect() completed (CREATE_SESSION's back-channel attributes)");
        int serverLimit = createSession(c);
        assertEquals(expectedMaxBackwardMessage(), mine.maxMessageSize(), "the client's backchannel size limit");
        assertEquals(expectedMaxBackwardMessage(), serverLimit, "the server's backchannel size limit");
        assertEquals(RpcBackchannel.Role.CALLER, RpcBackchannel.of(serverConnection.get()).role());
    }

    /**
     * Each backward call carries the credential of its own {@link CallOptions} in its RPC header, whatever the
     * transport (NFSv4.1 callbacks must use one the client offered, RFC 5661 §18.36.3 csa_sec_parms).
     */
    @Test
    public void eachBackwardCallCarriesTheCredentialOfItsOptions() throws Exception {
        Channel c = client(true);
        createSession(c);
        RpcClient back = RpcClient.of(serverConnection.get());
        OpaqueAuth sys = new AuthSysCredential(7, "cb-host", 1234, 5678, 42).toOpaqueAuth();
        for (OpaqueAuth cred : new OpaqueAuth[] {sys, OpaqueAuth.NONE, sys}) {
            OpaqueAuth seen = back.call(CB, VERS, CB_WHO, XdrPayload.empty(), OpaqueAuth::decode,
                    CallOptions.DEFAULT.withCredential(cred)).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(cred, seen);
        }
    }

    @Test
    public void forwardAndBackwardCallsInterleaveUnderLoadInBothDirections() throws Exception {
        Channel c = client(true);
        createSession(c);
        RpcClient client = RpcClient.of(c);
        Channel serverSide = serverConnection.get();
        List<CompletableFuture<byte[]>> forward = new ArrayList<>();
        List<CompletableFuture<byte[]>> viaCallback = new ArrayList<>();
        List<CompletableFuture<byte[]>> backward = new ArrayList<>();
        int rounds = 200;
        for (int i = 0; i < rounds; i++) {
            XdrPayload a = client.newPayload();
            a.writer().writeOpaque(pattern(100 + i * 37 % 3000, i));
            forward.add(client.call(FORE, VERS, ECHO, a, r -> r.readOpaque(1 << 20)));
            XdrPayload b = client.newPayload();
            b.writer().writeOpaque(pattern(1 + i % 500, i + 1000));
            viaCallback.add(client.call(FORE, VERS, CALL_ME_BACK, b, r -> r.readOpaque(4096)));
            backward.add(callBack(serverSide, pattern(1 + i * 13 % 1000, i + 2000), CallOptions.DEFAULT));
        }
        for (int i = 0; i < rounds; i++) {
            long ms = TIMEOUT.toMillis();
            assertArrayEquals(pattern(100 + i * 37 % 3000, i), forward.get(i).get(ms, TimeUnit.MILLISECONDS));
            assertArrayEquals(reversed(pattern(1 + i % 500, i + 1000)),
                    viaCallback.get(i).get(ms, TimeUnit.MILLISECONDS), "the callback's answer, via the server");
            assertArrayEquals(reversed(pattern(1 + i * 13 % 1000, i + 2000)),
                    backward.get(i).get(ms, TimeUnit.MILLISECONDS), "a backward call's reply");
        }
        assertEquals(2L * rounds, serverStats.backwardCallsSent());
        assertEquals(2L * rounds, serverStats.backwardRepliesReceived());
        assertEquals(2L * rounds, clientStats.backwardCallsReceived());
        assertEquals(0, clientStats.backwardDrops());
    }

    @Test
    public void aBlockingBackwardCallWorksOffTheLoopAndIsRefusedOnIt() throws Exception {
        Channel c = client(true);
        createSession(c);
        RpcClient back = RpcClient.of(serverConnection.get());
        XdrPayload args = back.newPayload();
        args.writer().writeOpaque(pattern(64, 7));
        assertArrayEquals(reversed(pattern(64, 7)), back.callAndWait(CB, VERS, CB_ECHO, args,
                r -> r.readOpaque(4096), CallOptions.DEFAULT.withTimeout(TIMEOUT)));
        ExecutionException onLoop = assertThrows(ExecutionException.class, () -> serverConnection.get().eventLoop()
                .submit(() -> back.callAndWait(CB, VERS, 0, back.newPayload(), RpcReplyDecoder.VOID,
                        CallOptions.DEFAULT)).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
        assertInstanceOf(IllegalStateException.class, onLoop.getCause());
    }

    @Test
    public void aBackwardCallBeforeTheServerEnabledItFailsClearlyAndNothingIsSent() throws Exception {
        Channel c = client(true);
        RpcBackchannel.of(c).enable();
        RpcClient client = RpcClient.of(c);
        client.callNull(FORE, VERS).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        // The server side of the connection, without CREATE_SESSION: find it through a forward call's context.
        Channel serverSide = serverSideOf(c);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> callBack(serverSide, pattern(10, 1), CallOptions.DEFAULT).get(TIMEOUT.toMillis(),
                        TimeUnit.MILLISECONDS));
        assertInstanceOf(RpcBackchannelException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("not enabled"), e.getCause().getMessage());
        assertEquals(0, serverStats.backwardCallsSent());
        assertEquals(0, clientStats.backwardCallsReceived() + clientStats.backwardDrops(), "nothing reached the client");
    }

    @Test
    public void aBackwardCallToAClientThatDidNotEnableItIsDroppedAndBreaksNothingElse() throws Exception {
        Channel c = client(true); // serves callbacks, but never enables them
        RpcClient client = RpcClient.of(c);
        client.call(FORE, VERS, CREATE_SESSION, client.newPayload(), r -> r.readInt())
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS); // the server enables its side anyway
        ExecutionException e = assertThrows(ExecutionException.class, () -> callBack(serverConnection.get(),
                pattern(10, 1), CallOptions.DEFAULT.withTimeout(Duration.ofMillis(500)))
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
        assertInstanceOf(RpcTimeoutException.class, e.getCause());
        Await.until(() -> clientStats.backwardDrops() == 1, "the client dropped and counted the backward call");
        XdrPayload a = client.newPayload();
        a.writer().writeOpaque(pattern(300, 3));
        assertArrayEquals(pattern(300, 3), client.call(FORE, VERS, ECHO, a, r -> r.readOpaque(4096))
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS), "the connection still carries forward calls");
        assertTrue(c.isActive());
    }

    @Test
    public void aBackwardCallToAClientWithoutCallbackServiceIsDroppedAndCounted() throws Exception {
        Channel c = client(false);
        RpcClient client = RpcClient.of(c);
        client.call(FORE, VERS, CREATE_SESSION, client.newPayload(), r -> r.readInt())
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        ExecutionException e = assertThrows(ExecutionException.class, () -> callBack(serverConnection.get(),
                pattern(10, 1), CallOptions.DEFAULT.withTimeout(Duration.ofMillis(500)))
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
        assertInstanceOf(RpcTimeoutException.class, e.getCause());
        Await.until(() -> clientStats.backwardDrops() == 1, "the client dropped and counted the backward call");
        client.callNull(FORE, VERS).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Test
    public void manyBackwardCallsAtOnceAllComplete() throws Exception {
        Channel c = client(true);
        createSession(c);
        List<CompletableFuture<byte[]>> backward = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            backward.add(callBack(serverConnection.get(), pattern(200, i), CallOptions.DEFAULT));
        }
        for (int i = 0; i < backward.size(); i++) {
            assertArrayEquals(reversed(pattern(200, i)), backward.get(i).get(TIMEOUT.toMillis(),
                    TimeUnit.MILLISECONDS), "backward call " + i + " queued, not lost");
        }
    }

    @Test
    public void pendingBackwardCallsFailClearlyWhenTheConnectionGoes() throws Exception {
        Channel c = client(true);
        createSession(c);
        // One answered call first: over RPC-over-RDMA it brings the client's backward grant (one until then).
        callBack(serverConnection.get(), pattern(8, 1), CallOptions.DEFAULT).get(TIMEOUT.toMillis(),
                TimeUnit.MILLISECONDS);
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        RpcClient back = RpcClient.of(serverConnection.get());
        for (int i = 0; i < 3; i++) {
            pending.add(back.call(CB, VERS, CB_HANG, back.newPayload(), RpcReplyDecoder.VOID));
        }
        Await.until(() -> hanging.size() == 3, "the client holds three backward calls");
        c.close().sync();
        for (CompletableFuture<Void> p : pending) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> p.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
            assertInstanceOf(RpcConnectionClosedException.class, e.getCause());
        }
    }

    /** The server side of client connection {@code c}: the server records it on CREATE_SESSION only, so ask. */
    private Channel serverSideOf(Channel c) throws Exception {
        // A second registry lookup is not needed: CALL_ME_BACK's context is the same connection. Use a NULL call's
        // reply path instead: the server side is the one whose remote address is c's local address.
        Channel found = null;
        for (int i = 0; i < 100 && found == null; i++) {
            found = serverChildren().stream().filter(ch -> c.localAddress().equals(ch.remoteAddress())).findFirst()
                    .orElse(null);
            if (found == null) {
                Thread.sleep(10);
            }
        }
        assertNotNull(found, "the server side of " + c);
        return found;
    }

    /** The server's accepted connections (subclasses track them in their server's child initializer). */
    protected abstract List<Channel> serverChildren();
}
