package dev.rpcrdma.oncrpc4j;

import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcReplyException;
import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.message.AuthStat;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.RejectStat;
import dev.rpcrdma.oncrpc.message.ReplyStat;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.rpcbind.PortMapping;
import dev.rpcrdma.oncrpc.rpcbind.RpcbindClient;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import org.dcache.oncrpc4j.portmap.OncRpcbindServer;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthException;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.EOFException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.CompletionHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * oncrpc4j's own services, unchanged, served by {@link OncRpcBridge}: its {@link OncRpcbindServer} answering this
 * project's rpcbind client (SET, GETPORT, DUMP); a server that calls its client back over the same connection
 * through {@code getPeerTransport()} (oncrpc4j's client-callback shape, nfs4j's CB_COMPOUND path), with oncrpc4j's
 * own client calls; oncrpc4j's error replies; disconnects failing pending calls. Run per transport: the software
 * RDMA fabric and TCP in {@code mvn verify}, Soft-RoCE in the VM stage.
 */
abstract class OncRpcBridgeSuite {
    static final long TIMEOUT = 120;
    static final int CB_PROG = 0x40000123;
    static final int SRV_PROG = 0x20000456;
    static final int VERS = 1;

    final ExecutorService executor = Executors.newFixedThreadPool(4);
    final List<Channel> channels = new ArrayList<>();

    /** Binds a server channel with {@code childHandler} on a free port. */
    abstract Channel bind(ChannelHandler childHandler) throws Exception;

    /** Connects a client channel with {@code handler} to {@code to}. */
    abstract Channel connect(SocketAddress to, ChannelHandler handler) throws Exception;

    /** The bridge's initializer on this transport. */
    abstract ChannelHandler initializer(OncRpcBridge bridge);

    /** This project's own native client initializer on this transport (for the rpcbind interop). */
    abstract ChannelHandler nativeClient();

    abstract void shutdown() throws Exception;

    @AfterEach
    void stop() throws Exception {
        for (Channel c : channels) {
            c.close().await(TIMEOUT, TimeUnit.SECONDS);
        }
        executor.shutdownNow();
        shutdown();
    }

    Channel server(Map<OncRpcProgram, RpcDispatchable> programs) throws Exception {
        Channel s = bind(initializer(OncRpcBridge.of(programs, executor)));
        channels.add(s);
        return s;
    }

    Channel client(SocketAddress to, Map<OncRpcProgram, RpcDispatchable> programs) throws Exception {
        Channel c = connect(to, initializer(OncRpcBridge.of(programs, executor)));
        channels.add(c);
        return c;
    }

    @Test
    void oncrpc4jsRpcbindServerAnswersSetGetportAndDump() throws Exception {
        Channel server = server(Map.of(new OncRpcProgram(100000, 2), new OncRpcbindServer()));
        Channel c = connect(server.localAddress(), nativeClient());
        channels.add(c);
        RpcbindClient rpcbind = new RpcbindClient(RpcClient.of(c));
        assertTrue(rpcbind.pmapSet(new PortMapping(0x20000777, 3, PortMapping.IPPROTO_TCP, 2345))
                .get(TIMEOUT, TimeUnit.SECONDS));
        assertFalse(rpcbind.pmapSet(new PortMapping(0x20000777, 3, PortMapping.IPPROTO_TCP, 2345))
                .get(TIMEOUT, TimeUnit.SECONDS), "a second SET of the same mapping is refused");
        assertEquals(2345, rpcbind.pmapGetPort(0x20000777, 3, PortMapping.IPPROTO_TCP).get(TIMEOUT, TimeUnit.SECONDS));
        assertEquals(0, rpcbind.pmapGetPort(0x20000778, 3, PortMapping.IPPROTO_TCP).get(TIMEOUT, TimeUnit.SECONDS));
        List<PortMapping> dump = rpcbind.pmapDump().get(TIMEOUT, TimeUnit.SECONDS);
        assertTrue(dump.stream().anyMatch(m -> m.program() == 0x20000777 && m.port() == 2345), dump.toString());
        assertTrue(dump.stream().anyMatch(m -> m.program() == 100000 && m.port() == 111), dump.toString());
    }

    /**
     * oncrpc4j's client-callback shape: the server's procedure calls the client back through
     * {@code call.getTransport().getPeerTransport()} and replies with what the callback answered; the client is
     * oncrpc4j's own {@link RpcCall} on the bridge's transport, serving the callback program.
     */
    @Test
    void aServerCallsItsClientBackOnTheSameConnection() throws Exception {
        RpcDispatchable service = call -> {
            XdrInt arg = new XdrInt();
            call.retrieveCall(arg);
            RpcTransport peer = call.getTransport().getPeerTransport();
            assertInstanceOf(InetSocketAddress.class, peer.getRemoteSocketAddress());
            RpcCall back = new RpcCall(CB_PROG, VERS, new RpcAuthTypeNone(), peer);
            XdrInt answer = new XdrInt();
            try {
                back.call(1, new XdrInt(arg.intValue() + 1), answer, TIMEOUT, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new java.io.IOException(e);
            }
            call.reply(new XdrInt(answer.intValue() * 10));
        };
        RpcDispatchable callback = call -> {
            XdrInt arg = new XdrInt();
            call.retrieveCall(arg);
            call.reply(new XdrInt(arg.intValue() + 100));
        };
        Channel server = server(Map.of(new OncRpcProgram(SRV_PROG, VERS), service));
        Channel c = client(server.localAddress(), Map.of(new OncRpcProgram(CB_PROG, VERS), callback));
        RpcTransport transport = OncRpcBridge.transport(c);
        for (int i = 0; i < 3; i++) {
            XdrInt result = new XdrInt();
            new RpcCall(SRV_PROG, VERS, new RpcAuthTypeNone(), transport).call(1, new XdrInt(i), result, TIMEOUT,
                    TimeUnit.SECONDS);
            assertEquals((i + 1 + 100) * 10, result.intValue());
        }
        assertFalse(transport.isTLS());
        assertThrows(RpcAuthException.class, transport::startTLS);
        assertTrue(transport.getPeerTransport() == transport, "the peer transport is the same connection");
    }

    /** PROG_UNAVAIL from oncrpc4j's dispatch; a program's runtime exception is SYSTEM_ERR and the connection lives. */
    @Test
    void oncrpc4jsErrorRepliesAndAThrowingProgramKeepTheConnection() throws Exception {
        RpcDispatchable throwing = call -> {
            throw new IllegalStateException("a bug in the program");
        };
        RpcDispatchable echo = call -> {
            XdrInt arg = new XdrInt();
            call.retrieveCall(arg);
            call.reply(arg);
        };
        Channel server = server(Map.of(new OncRpcProgram(SRV_PROG, VERS), throwing,
                new OncRpcProgram(SRV_PROG, 2), echo));
        Channel c = connect(server.localAddress(), nativeClient());
        channels.add(c);
        RpcClient client = RpcClient.of(c);
        ExecutionException unavailable = assertThrows(ExecutionException.class,
                () -> client.call(0x20000999, VERS, 1, XdrPayload.empty(), r -> null).get(TIMEOUT, TimeUnit.SECONDS));
        assertEquals(AcceptStat.PROG_UNAVAIL, ((RpcReplyException) unavailable.getCause()).reply().acceptStat());
        ExecutionException system = assertThrows(ExecutionException.class,
                () -> client.call(SRV_PROG, VERS, 1, XdrPayload.empty(), r -> null).get(TIMEOUT, TimeUnit.SECONDS));
        assertEquals(AcceptStat.SYSTEM_ERR, ((RpcReplyException) system.getCause()).reply().acceptStat());
        ExecutionException garbage = assertThrows(ExecutionException.class,
                () -> client.call(SRV_PROG, 2, 1, XdrPayload.empty(), r -> null).get(TIMEOUT, TimeUnit.SECONDS));
        assertEquals(AcceptStat.GARBAGE_ARGS, ((RpcReplyException) garbage.getCause()).reply().acceptStat());
        XdrPayload args = client.newPayload();
        args.writer().writeInt(42);
        assertEquals(42, client.call(SRV_PROG, 2, 1, args, r -> r.readInt()).get(TIMEOUT, TimeUnit.SECONDS));
        assertTrue(c.isActive());
    }

    /**
     * oncrpc4j's SAME_THREAD strategy ({@link OncRpcBridge#of(Map)}): programs run on the connection's event loop,
     * with no executor; a program's reply, oncrpc4j's rpcbind service, PROG_UNAVAIL and a throwing program's
     * SYSTEM_ERR all come back as with a worker pool, and the connection stays.
     */
    @Test
    void sameThreadRunsProgramsOnTheEventLoop() throws Exception {
        List<Boolean> onLoop = java.util.Collections.synchronizedList(new ArrayList<>());
        RpcDispatchable echo = call -> {
            NettyRpcTransport t = (NettyRpcTransport) call.getTransport();
            onLoop.add(t.channel().eventLoop().inEventLoop());
            XdrInt arg = new XdrInt();
            call.retrieveCall(arg);
            call.reply(arg);
        };
        RpcDispatchable throwing = call -> {
            throw new IllegalStateException("a bug in the program");
        };
        OncRpcBridge bridge = OncRpcBridge.of(Map.of(new OncRpcProgram(SRV_PROG, VERS), echo,
                new OncRpcProgram(SRV_PROG, 2), throwing, new OncRpcProgram(100000, 2), new OncRpcbindServer()));
        assertEquals(org.dcache.oncrpc4j.rpc.IoStrategy.SAME_THREAD, bridge.ioStrategy());
        assertEquals(org.dcache.oncrpc4j.rpc.IoStrategy.WORKER_THREAD,
                OncRpcBridge.of(Map.of(), executor).ioStrategy());
        Channel server = bind(initializer(bridge));
        channels.add(server);
        Channel c = connect(server.localAddress(), nativeClient());
        channels.add(c);
        RpcClient client = RpcClient.of(c);
        for (int i = 0; i < 3; i++) {
            XdrPayload args = client.newPayload();
            args.writer().writeInt(40 + i);
            assertEquals(40 + i, client.call(SRV_PROG, VERS, 1, args, r -> r.readInt()).get(TIMEOUT,
                    TimeUnit.SECONDS));
        }
        assertEquals(List.of(true, true, true), onLoop, "the program ran on the connection's event loop");
        ExecutionException system = assertThrows(ExecutionException.class,
                () -> client.call(SRV_PROG, 2, 1, XdrPayload.empty(), r -> null).get(TIMEOUT, TimeUnit.SECONDS));
        assertEquals(AcceptStat.SYSTEM_ERR, ((RpcReplyException) system.getCause()).reply().acceptStat());
        ExecutionException unavailable = assertThrows(ExecutionException.class,
                () -> client.call(0x20000999, VERS, 1, XdrPayload.empty(), r -> null).get(TIMEOUT, TimeUnit.SECONDS));
        assertEquals(AcceptStat.PROG_UNAVAIL, ((RpcReplyException) unavailable.getCause()).reply().acceptStat());
        RpcbindClient rpcbind = new RpcbindClient(client);
        assertTrue(rpcbind.pmapSet(new PortMapping(0x20000777, 3, PortMapping.IPPROTO_TCP, 2345))
                .get(TIMEOUT, TimeUnit.SECONDS));
        assertEquals(2345, rpcbind.pmapGetPort(0x20000777, 3, PortMapping.IPPROTO_TCP).get(TIMEOUT, TimeUnit.SECONDS));
        assertTrue(c.isActive());
        assertEquals(0, ((java.util.concurrent.ThreadPoolExecutor) executor).getTaskCount(),
                "no call went through an executor");
    }

    /**
     * {@code RpcCall.accept()}'s rejections are oncrpc4j's own replies and the connection stays: a credential flavor
     * oncrpc4j does not know (AUTH_DH), and AUTH_TLS, the probe of RFC 9289 §4.1, which oncrpc4j answers by starting
     * TLS on the transport; the bridge's transport refuses as oncrpc4j's does without TLS (AUTH_ERROR, AUTH_FAILED).
     */
    @Test
    void authRejectionsAndAnAuthTlsProbeAreRepliesAndKeepTheConnection() throws Exception {
        RpcDispatchable echo = call -> {
            XdrInt arg = new XdrInt();
            call.retrieveCall(arg);
            call.reply(arg);
        };
        Channel server = server(Map.of(new OncRpcProgram(SRV_PROG, VERS), echo));
        Channel c = connect(server.localAddress(), nativeClient());
        channels.add(c);
        RpcClient client = RpcClient.of(c);
        for (AuthFlavor flavor : new AuthFlavor[] {AuthFlavor.AUTH_DH, AuthFlavor.valueOf(7)}) {
            CallOptions credential = CallOptions.DEFAULT.withCredential(OpaqueAuth.of(flavor, new byte[0]));
            ExecutionException denied = assertThrows(ExecutionException.class, () -> client.call(SRV_PROG, VERS, 0,
                    XdrPayload.empty(), r -> null, credential).get(TIMEOUT, TimeUnit.SECONDS), flavor.toString());
            RpcReply reply = assertInstanceOf(RpcReplyException.class, denied.getCause(), flavor.toString()).reply();
            assertEquals(ReplyStat.MSG_DENIED, reply.replyStat(), reply.toString());
            assertEquals(RejectStat.AUTH_ERROR, reply.rejectStat(), reply.toString());
            assertEquals(AuthStat.AUTH_FAILED, reply.authStat(), reply.toString());
        }
        XdrPayload args = client.newPayload();
        args.writer().writeInt(7);
        assertEquals(7, client.call(SRV_PROG, VERS, 1, args, r -> r.readInt()).get(TIMEOUT, TimeUnit.SECONDS));
        assertTrue(c.isActive());
    }

    /**
     * A backward call waiting for the client's reply fails when the connection goes, as oncrpc4j's own transport
     * fails it ({@code ReplyQueue.handleDisconnect}): the server's program sees the failure, nothing hangs.
     */
    @Test
    void aDisconnectFailsPendingBackwardCalls() throws Exception {
        CountDownLatch calledBack = new CountDownLatch(1);
        CompletableFuture<Throwable> backwardFailure = new CompletableFuture<>();
        RpcDispatchable service = call -> {
            RpcCall back = new RpcCall(CB_PROG, VERS, new RpcAuthTypeNone(), call.getTransport().getPeerTransport());
            back.call(1, XdrVoid.XDR_VOID, new CompletionHandler<>() {
                @Override
                public void completed(org.dcache.oncrpc4j.rpc.RpcReply result, RpcTransport attachment) {
                    backwardFailure.complete(null);
                }

                @Override
                public void failed(Throwable exc, RpcTransport attachment) {
                    backwardFailure.complete(exc);
                }
            });
        };
        RpcDispatchable silentCallback = call -> calledBack.countDown(); // never replies
        Channel server = server(Map.of(new OncRpcProgram(SRV_PROG, VERS), service));
        Channel c = client(server.localAddress(), Map.of(new OncRpcProgram(CB_PROG, VERS), silentCallback));
        new RpcCall(SRV_PROG, VERS, new RpcAuthTypeNone(), OncRpcBridge.transport(c)).call(1, XdrVoid.XDR_VOID,
                new CompletionHandler<>() {
                    @Override
                    public void completed(org.dcache.oncrpc4j.rpc.RpcReply result, RpcTransport attachment) {
                    }

                    @Override
                    public void failed(Throwable exc, RpcTransport attachment) {
                    }
                });
        assertTrue(calledBack.await(TIMEOUT, TimeUnit.SECONDS), "the server called its client back");
        c.close().sync();
        assertInstanceOf(EOFException.class, backwardFailure.get(TIMEOUT, TimeUnit.SECONDS));
    }

    /**
     * A call waiting for its reply fails when the connection goes ({@code ReplyQueue.handleDisconnect}); a send on
     * a closed connection fails its completion handler.
     */
    @Test
    void aDisconnectFailsPendingCallsAndLaterSends() throws Exception {
        CountDownLatch received = new CountDownLatch(1);
        RpcDispatchable silent = call -> received.countDown(); // never replies
        Channel server = server(Map.of(new OncRpcProgram(SRV_PROG, VERS), silent));
        Channel c = client(server.localAddress(), Map.of());
        RpcTransport transport = OncRpcBridge.transport(c);
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        new RpcCall(SRV_PROG, VERS, new RpcAuthTypeNone(), transport).call(1, XdrVoid.XDR_VOID,
                new CompletionHandler<>() {
                    @Override
                    public void completed(org.dcache.oncrpc4j.rpc.RpcReply result, RpcTransport attachment) {
                        failure.complete(null);
                    }

                    @Override
                    public void failed(Throwable exc, RpcTransport attachment) {
                        failure.complete(exc);
                    }
                });
        assertTrue(received.await(TIMEOUT, TimeUnit.SECONDS));
        c.close().sync();
        assertInstanceOf(EOFException.class, failure.get(TIMEOUT, TimeUnit.SECONDS));
        assertFalse(transport.isOpen());
        CompletableFuture<Throwable> sendFailure = new CompletableFuture<>();
        org.dcache.oncrpc4j.xdr.Xdr xdr = new org.dcache.oncrpc4j.xdr.Xdr(64);
        xdr.beginEncoding();
        xdr.xdrEncodeInt(1);
        xdr.endEncoding();
        transport.send(xdr, null, new CompletionHandler<Integer, Object>() {
            @Override
            public void completed(Integer result, Object attachment) {
                sendFailure.complete(null);
            }

            @Override
            public void failed(Throwable exc, Object attachment) {
                sendFailure.complete(exc);
            }
        });
        assertInstanceOf(ClosedChannelException.class, sendFailure.get(TIMEOUT, TimeUnit.SECONDS));
    }
}
