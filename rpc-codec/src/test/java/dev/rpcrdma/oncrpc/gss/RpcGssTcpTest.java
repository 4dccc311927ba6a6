package dev.rpcrdma.oncrpc.gss;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.BlockingRpcClient;
import dev.rpcrdma.oncrpc.client.RpcCallSecurity;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcReplyException;
import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.message.AuthStat;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RejectStat;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.metrics.RpcMetrics;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcConfig;
import dev.rpcrdma.oncrpc.tcp.TcpRpcServerInitializer;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.testing.Krb5Realm;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.ietf.jgss.GSSCredential;
import org.ietf.jgss.GSSException;
import org.ietf.jgss.GSSName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RPCSEC_GSS (RFC 2203) with Kerberos V5 against a real MIT KDC: our client and our server over loopback TCP with
 * krb5, krb5i and krb5p, and the bad input of RFC 2203 §5.3.3 sent byte for byte on a raw socket.
 */
class RpcGssTcpTest {

    private static final int PROG = 0x2004F0C5;
    private static final int VERS = 1;
    private static final int ECHO = 1;
    private static final int WHOAMI = 2;

    private static Krb5Realm realm;
    private static GSSCredential acceptor;
    private static GSSCredential alice;
    private static GSSName target;

    private final AtomicLong clock = new AtomicLong();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private EventLoopGroup group;
    private Channel server;
    private RpcGssAuthenticator gss;

    @BeforeAll
    static void realm() throws Exception {
        realm = Krb5Realm.start();
        java.nio.file.Path serverKeytab = realm.addPrincipal("nfs/localhost");
        java.nio.file.Path aliceKeytab = realm.addPrincipal("alice");
        acceptor = Krb5Credentials.acceptor(Krb5Realm.name("nfs/localhost"), serverKeytab);
        alice = Krb5Credentials.initiator(Krb5Realm.name("alice"), aliceKeytab);
        target = Krb5Credentials.principalName(Krb5Realm.name("nfs/localhost"));
    }

    @AfterAll
    static void stopRealm() {
        if (realm != null) {
            realm.close();
        }
    }

    private void startServer(RpcGssLimits limits) throws InterruptedException {
        gss = new RpcGssAuthenticator(acceptor).withLimits(limits).withClock(clock::get);
        RpcProgramRegistry registry = new RpcProgramRegistry()
                .registerNull(PROG, VERS)
                .register(PROG, VERS, ECHO, (call, args) -> {
                    XdrPayload results = call.newPayload();
                    results.writeDdpOpaque(args.readOpaqueSlice(1 << 20));
                    call.replySuccess(results);
                })
                .register(PROG, VERS, WHOAMI, (call, args) -> {
                    XdrPayload results = call.newPayload();
                    results.writer().writeString(call.flavor() + " " + call.protection() + " " + call.identity());
                    call.replySuccess(results);
                });
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new TcpRpcServerInitializer(new RpcDispatcher(registry, new RpcStats())
                        .withAuthenticator(gss)))
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    private RpcClient connect() throws InterruptedException {
        return connect("127.0.0.1");
    }

    /** A client connecting from {@code localAddress} (any 127/8 address: another peer for the server). */
    private RpcClient connect(String localAddress) throws InterruptedException {
        Channel ch = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .handler(new TcpRpcClientInitializer(new RpcStats(), TcpRpcConfig.DEFAULT, Duration.ofSeconds(30)))
                .connect(server.localAddress(), new InetSocketAddress(localAddress, 0)).sync().channel();
        closeables.add(() -> ch.close().sync());
        return RpcClient.of(ch);
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        if (server != null) {
            server.close().sync();
        }
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private static byte[] echo(RpcClient client, RpcGssClientContext context, byte[] data) throws Exception {
        XdrPayload args = client.newPayload();
        args.writer().writeOpaque(data);
        return client.callAndWait(PROG, VERS, ECHO, args, r -> r.readOpaque(1 << 20), context.callOptions());
    }

    private static String whoami(RpcClient client, RpcGssClientContext context) throws Exception {
        return client.callAndWait(PROG, VERS, WHOAMI, client.newPayload(), r -> r.readString(1000),
                context.callOptions());
    }

    private RpcGssClientContext establish(RpcClient client, RpcGssService service) throws Exception {
        return RpcGssClientContext.establish(client, PROG, VERS, alice, target, service);
    }

    @ParameterizedTest
    @EnumSource(RpcGssService.class)
    void nullEchoAndIdentityUnderEachService(RpcGssService service) throws Exception {
        startServer(RpcGssLimits.DEFAULT);
        RpcClient client = connect();
        RpcGssClientContext context = establish(client, service);
        assertEquals(128, context.window());
        client.callAndWait(PROG, VERS, 0, XdrPayload.empty(), r -> null, context.callOptions());
        for (int size : new int[] {0, 1, 1000, 100_000}) {
            byte[] data = new byte[size];
            ThreadLocalRandom.current().nextBytes(data);
            assertArrayEquals(data, echo(client, context, data), service + " echo of " + size + " bytes");
        }
        assertEquals("RPCSEC_GSS " + service.protection() + " " + Krb5Realm.name("alice"), whoami(client, context));
        assertEquals(1, gss.stats().contextsEstablished());
        assertEquals(1, gss.contexts());
        context.destroy(client);
        assertEquals(1, gss.stats().contextsDestroyed());
        assertEquals(0, gss.contexts());
        assertThrows(RpcGssException.class, () -> echo(client, context, new byte[1]));
    }

    private static final int CALL_ME_BACK = 3;
    private static final int CB = 0x40000123;
    private static final int CB_WHO = 1;

    /**
     * A server whose CALL_ME_BACK(handle, back handle, service, data) calls the client back on the same connection
     * under {@link RpcGssAuthenticator#callbackSecurity} and answers what the callback answered, "NOENT" when the
     * handle names no context, or "FAILED " and the failure.
     */
    private void startCallbackServer() throws InterruptedException {
        gss = new RpcGssAuthenticator(acceptor);
        java.util.Map<String, RpcCallSecurity> sessions = new java.util.concurrent.ConcurrentHashMap<>();
        RpcProgramRegistry registry = new RpcProgramRegistry().registerNull(PROG, VERS)
                .register(PROG, VERS, CALL_ME_BACK, (call, args) -> {
                    byte[] handle = args.readOpaque(400);
                    byte[] back = args.readOpaque(400);
                    RpcGssService service = RpcGssService.valueOf(args.readInt());
                    byte[] data = args.readOpaque(1 << 16);
                    // Made once per "session" (context, back handle and service), as CREATE_SESSION would.
                    String key = java.util.Arrays.toString(handle) + java.util.Arrays.toString(back) + service;
                    RpcCallSecurity security = sessions.get(key);
                    if (security == null) {
                        security = gss.callbackSecurity(handle, back, service);
                        if (security != null) {
                            sessions.put(key, security);
                        }
                    }
                    if (security == null) {
                        XdrPayload results = call.newPayload();
                        results.writer().writeString("NOENT");
                        call.replySuccess(results);
                        return;
                    }
                    call.backchannel().enable();
                    RpcClient cb = call.callback();
                    XdrPayload cbArgs = cb.newPayload();
                    cbArgs.writer().writeOpaque(data);
                    cb.call(CB, VERS, CB_WHO, cbArgs, r -> r.readString(70_000),
                            dev.rpcrdma.oncrpc.client.CallOptions.DEFAULT.withSecurity(security))
                            .whenComplete((answer, failure) -> {
                                XdrPayload results = call.newPayload();
                                results.writer().writeString(failure == null ? answer : "FAILED " + failure);
                                call.replySuccess(results);
                            });
                });
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new TcpRpcServerInitializer(new RpcDispatcher(registry, new RpcStats())
                        .withAuthenticator(gss)).withBackchannel())
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    /** A client whose connection serves CB_WHO (who called, under which protection, and the data's length). */
    private RpcClient connectWithCallbacks(RpcGssAuthenticator callbacks) throws InterruptedException {
        RpcProgramRegistry cbRegistry = new RpcProgramRegistry().registerNull(CB, VERS)
                .register(CB, VERS, CB_WHO, (call, args) -> {
                    byte[] data = args.readOpaque(1 << 16);
                    XdrPayload results = call.newPayload();
                    results.writer().writeString(call.flavor() + " " + call.protection() + " " + call.identity()
                            + " " + data.length);
                    call.replySuccess(results);
                });
        Channel ch = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .handler(new TcpRpcClientInitializer(new RpcStats(), TcpRpcConfig.DEFAULT, Duration.ofSeconds(30))
                        .withCallbacks(new RpcDispatcher(cbRegistry, new RpcStats()).withAuthenticator(callbacks)))
                .connect(server.localAddress()).sync().channel();
        closeables.add(() -> ch.close().sync());
        dev.rpcrdma.oncrpc.RpcBackchannel.of(ch).enable();
        return RpcClient.of(ch);
    }

    private static String callMeBack(RpcClient client, RpcGssClientContext context, byte[] handle, byte[] back,
                                     RpcGssService service, int size) throws Exception {
        XdrPayload args = client.newPayload();
        args.writer().writeOpaque(handle).writeOpaque(back).writeInt(service.intValue()).writeOpaque(new byte[size]);
        return client.callAndWait(PROG, VERS, CALL_ME_BACK, args, r -> r.readString(70_000), context.callOptions());
    }

    /**
     * RFC 5661 §2.10.8.2: the server calls back under the client's context, with the client's back handle and the
     * service the client chose (not necessarily the fore channel's), each direction with its own sequence; the
     * client checks them and refuses a handle it did not offer; a destroyed context serves no more callbacks.
     */
    @ParameterizedTest
    @EnumSource(RpcGssService.class)
    void callbacksRunUnderTheClientsContextWithItsBackHandle(RpcGssService service) throws Exception {
        startCallbackServer();
        RpcGssAuthenticator callbacks = RpcGssAuthenticator.forCallbacks();
        RpcClient client = connectWithCallbacks(callbacks);
        RpcGssClientContext context = establish(client, RpcGssService.INTEGRITY);
        byte[] back = {1, 2, 3, 4, 5};
        callbacks.acceptCallbacks(context, back);
        String expected = "RPCSEC_GSS " + service.protection() + " " + Krb5Realm.name("nfs/localhost") + " ";
        for (int i = 0; i < 3; i++) {
            assertEquals(expected + (1000 * i), callMeBack(client, context, context.handle(), back, service,
                    1000 * i));
        }
        assertEquals(0, callbacks.stats().unknownHandles());
        // A handle the server never made: NOENT. A back handle the client did not offer: the client refuses it.
        assertEquals("NOENT", callMeBack(client, context, new byte[] {9, 9}, back, service, 1));
        String refused = callMeBack(client, context, context.handle(), new byte[] {7}, service, 1);
        assertTrue(refused.startsWith("FAILED ") && refused.contains("RPCSEC_GSS_CREDPROBLEM"), refused);
        assertEquals(1, callbacks.stats().unknownHandles());
        // Once destroyed, the context serves no callback: a session made before fails its callbacks, a new one
        // cannot name it.
        RpcGssClientContext other = establish(client, RpcGssService.NONE);
        byte[] handle = context.handle();
        context.destroy(client);
        String ended = callMeBack(client, other, handle, back, service, 1);
        assertTrue(ended.startsWith("FAILED ") && ended.contains("ended"), ended);
        assertEquals("NOENT", callMeBack(client, other, handle, new byte[] {6}, service, 1));
    }

    /** RFC 8166 §8.2.2: a protected body is never reduced, and a Reply chunk has room for the largest verifier. */
    @ParameterizedTest
    @EnumSource(RpcGssService.class)
    void protectedCallsAskForNoDdpAndRoomForTheVerifier(RpcGssService service) throws Exception {
        startServer(RpcGssLimits.DEFAULT);
        RpcClient client = connect();
        RpcGssClientContext context = establish(client, service);
        XdrPayload args = XdrPayload.newPayload(ByteBufAllocator.DEFAULT);
        args.writeDdpOpaque(Unpooled.wrappedBuffer(new byte[8192]));
        OutboundRpcMessage m = context.seal(77, PROG, VERS, ECHO, new int[] {8192}, 9000, args,
                ByteBufAllocator.DEFAULT).message();
        try {
            RpcCall call = (RpcCall) m.header();
            assertEquals(AuthFlavor.RPCSEC_GSS, call.credential().flavor());
            assertEquals(AuthFlavor.RPCSEC_GSS, call.verifier().flavor());
            assertTrue(call.maxReplySize() >= 9000 + OpaqueAuth.MAX_BODY, "room for the largest verifier");
            if (service == RpcGssService.NONE) {
                assertEquals(1, call.replyDdpItemCount());
                assertEquals(1, m.body().ddpItems().size(), "krb5: DDP as usual");
            } else {
                assertEquals(0, call.replyDdpItemCount(), service + ": no Write chunk for the reply");
                assertEquals(0, m.body().ddpItems().size(), service + ": the body is one token, inline");
            }
        } finally {
            m.release();
        }
    }

    /** A reply as large as the call allows, once protected, is still accepted: the bound has room for the flavor. */
    @ParameterizedTest
    @EnumSource(RpcGssService.class)
    void theMaximumReplySizeLeavesRoomForTheVerifierAndTheProtection(RpcGssService service) throws Exception {
        startServer(RpcGssLimits.DEFAULT);
        RpcClient client = connect();
        RpcGssClientContext context = establish(client, service);
        XdrPayload args = client.newPayload();
        args.writer().writeOpaque(new byte[1000]);
        int unprotectedReply = 24 + 4 + 1000; // header with an empty verifier, SUCCESS, the opaque
        byte[] echoed = client.callAndWait(PROG, VERS, ECHO, args, r -> r.readOpaque(1 << 20),
                context.callOptions().withMaxReplySize(unprotectedReply));
        assertEquals(1000, echoed.length);
    }

    @Test
    void blockingClientWithPrivacy() throws Exception {
        startServer(RpcGssLimits.DEFAULT);
        Bootstrap bootstrap = new Bootstrap().channel(NioSocketChannel.class)
                .handler(new TcpRpcClientInitializer(new RpcStats(), TcpRpcConfig.DEFAULT, Duration.ofSeconds(30)));
        try (BlockingRpcClient client = BlockingRpcClient.connect(bootstrap, NioIoHandler.newFactory(),
                server.localAddress(), Duration.ofSeconds(10))) {
            RpcGssClientContext context = RpcGssClientContext.establish(client, PROG, VERS, alice, target,
                    RpcGssService.PRIVACY);
            XdrPayload args = client.newPayload();
            args.writer().writeOpaque("secret".getBytes(StandardCharsets.US_ASCII));
            assertArrayEquals("secret".getBytes(StandardCharsets.US_ASCII),
                    client.call(PROG, VERS, ECHO, args, r -> r.readOpaque(100), context.callOptions()));
            context.destroy(client);
        }
        assertEquals(1, gss.stats().contextsDestroyed());
    }

    @Test
    void unknownTargetFailsLocally() throws Exception {
        startServer(RpcGssLimits.DEFAULT);
        RpcClient client = connect();
        assertThrows(GSSException.class, () -> RpcGssClientContext.establish(client, PROG, VERS, alice,
                Krb5Credentials.principalName(Krb5Realm.name("nfs/nosuchhost")), RpcGssService.NONE));
        assertEquals(0, gss.contexts());
    }

    @Test
    void expiredContextGetsCtxProblem() throws Exception {
        startServer(RpcGssLimits.DEFAULT.withMaxLifetime(Duration.ofMinutes(1)));
        RpcClient client = connect();
        RpcGssClientContext context = establish(client, RpcGssService.INTEGRITY);
        assertArrayEquals(new byte[] {1}, echo(client, context, new byte[] {1}));
        clock.addAndGet(TimeUnit.MINUTES.toNanos(2));
        RpcReplyException e = assertThrows(RpcReplyException.class, () -> echo(client, context, new byte[] {2}));
        assertEquals(AuthStat.RPCSEC_GSS_CTXPROBLEM, e.reply().authStat());
        assertEquals(1, gss.stats().contextsExpired());
        assertEquals(0, gss.contexts());
        // A new context works.
        RpcGssClientContext fresh = establish(client, RpcGssService.INTEGRITY);
        assertArrayEquals(new byte[] {3}, echo(client, fresh, new byte[] {3}));
    }

    @Test
    void contextBoundsEvictTheLeastRecentlyUsed() throws Exception {
        startServer(RpcGssLimits.DEFAULT.withMaxContexts(3, 2));
        RpcClient client = connect();
        RpcGssClientContext first = establish(client, RpcGssService.NONE);
        RpcGssClientContext second = establish(client, RpcGssService.NONE);
        echo(client, first, new byte[] {1}); // second is now the least recently used
        RpcGssClientContext third = establish(client, RpcGssService.NONE);
        assertEquals(2, gss.contexts());
        assertEquals(1, gss.stats().contextsEvicted());
        assertArrayEquals(new byte[] {1}, echo(client, first, new byte[] {1}));
        assertArrayEquals(new byte[] {3}, echo(client, third, new byte[] {3}));
        RpcReplyException e = assertThrows(RpcReplyException.class, () -> echo(client, second, new byte[] {2}));
        assertEquals(AuthStat.RPCSEC_GSS_CREDPROBLEM, e.reply().authStat());
        assertEquals(1, gss.stats().unknownHandles());
    }

    /** A flood of INITs from one peer pushes out only that peer's oldest contexts; another peer's stays. */
    @Test
    void aFloodOfInitsFromOnePeerEvictsOnlyItsOwnOldestContexts() throws Exception {
        startServer(RpcGssLimits.DEFAULT.withMaxContexts(100, 3));
        RpcClient quiet = connect("127.0.0.2");
        RpcGssClientContext kept = establish(quiet, RpcGssService.INTEGRITY);
        RpcClient flooder = connect("127.0.0.1");
        List<RpcGssClientContext> flood = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            flood.add(establish(flooder, RpcGssService.NONE));
        }
        assertEquals(4, gss.contexts(), "3 of the flooding peer's, 1 of the other");
        assertEquals(7, gss.stats().contextsEvicted());
        assertArrayEquals(new byte[] {1}, echo(quiet, kept, new byte[] {1}));
        for (int i = 0; i < 10; i++) {
            RpcGssClientContext c = flood.get(i);
            if (i < 7) {
                RpcReplyException e = assertThrows(RpcReplyException.class, () -> echo(flooder, c, new byte[] {2}));
                assertEquals(AuthStat.RPCSEC_GSS_CREDPROBLEM, e.reply().authStat());
            } else {
                assertArrayEquals(new byte[] {3}, echo(flooder, c, new byte[] {3}));
            }
        }
    }

    /** A raw connection: calls sealed by a context, sent as bytes (so they can be replayed or altered). */
    private final class Raw implements AutoCloseable {
        private final Socket socket = new Socket();
        private final DataOutputStream out;
        private final DataInputStream in;
        private int xid = 1000;

        Raw() throws IOException {
            socket.connect(server.localAddress());
            out = new DataOutputStream(socket.getOutputStream());
            in = new DataInputStream(socket.getInputStream());
        }

        byte[] seal(RpcCallSecurity security, int proc, byte[] opaqueArg) throws Exception {
            XdrPayload args = XdrPayload.newPayload(ByteBufAllocator.DEFAULT);
            if (opaqueArg != null) {
                args.writer().writeOpaque(opaqueArg);
            }
            OutboundRpcMessage m = security.seal(xid++, PROG, VERS, proc, new int[0], 0, args,
                    ByteBufAllocator.DEFAULT).message();
            ByteBuf b = RpcMessageCodec.encodeInline(ByteBufAllocator.DEFAULT, m);
            m.release();
            byte[] bytes = new byte[b.readableBytes()];
            b.readBytes(bytes);
            b.release();
            return bytes;
        }

        void send(byte[] record) throws IOException {
            out.writeInt(0x80000000 | record.length);
            out.write(record);
            out.flush();
        }

        /** The next reply's header. */
        RpcReply reply() throws Exception {
            int mark = in.readInt();
            byte[] record = new byte[mark & 0x7fffffff];
            in.readFully(record);
            InboundRpcMessage m = RpcMessageCodec.decode(Unpooled.wrappedBuffer(record));
            try {
                return ((RpcReply) m.header()).copy();
            } finally {
                m.release();
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static int xidOf(byte[] record) {
        return Unpooled.wrappedBuffer(record).getInt(0);
    }

    @Test
    void replayedAndForgedRequests() throws Exception {
        startServer(RpcGssLimits.DEFAULT);
        RpcClient client = connect();
        RpcGssClientContext context = establish(client, RpcGssService.INTEGRITY);
        try (Raw raw = new Raw()) {
            byte[] call = raw.seal(context, ECHO, new byte[] {42});
            raw.send(call);
            RpcReply first = raw.reply();
            assertEquals(xidOf(call), first.xid());
            assertTrue(first.isSuccess());
            // The same request again: dropped silently (RFC 2203 §5.3.3.1); the next reply is the next call's.
            raw.send(call);
            byte[] next = raw.seal(context, ECHO, new byte[] {43});
            raw.send(next);
            assertEquals(xidOf(next), raw.reply().xid());
            assertEquals(1, gss.stats().replayDrops());
            assertEquals(1, gss.stats().attachTo(new RpcMetrics("gss", RpcMetrics.Role.SERVER)).attached()
                    .get("RpcGss.ReplayDrops").getAsLong(), "the counters are exposed as metrics");

            // A forged header MIC (the last byte of the verifier body): RPCSEC_GSS_CREDPROBLEM.
            byte[] forged = raw.seal(context, ECHO, new byte[] {44});
            forged[headerEnd(forged) - 1] ^= 1;
            raw.send(forged);
            RpcReply refused = raw.reply();
            assertEquals(RejectStat.AUTH_ERROR, refused.rejectStat());
            assertEquals(AuthStat.RPCSEC_GSS_CREDPROBLEM, refused.authStat());

            // An altered procedure number under a valid MIC: the header checksum no longer verifies.
            byte[] altered = raw.seal(context, ECHO, new byte[] {45});
            altered[23] = WHOAMI;
            raw.send(altered);
            assertEquals(AuthStat.RPCSEC_GSS_CREDPROBLEM, raw.reply().authStat());
            assertEquals(2, gss.stats().badVerifiers());

            // An altered integrity body: GARBAGE_ARGS, with a verifier.
            byte[] body = raw.seal(context, ECHO, new byte[] {46});
            body[headerEnd(body) + 4 + 4 + 4] ^= 1; // the opaque argument's length inside databody_integ
            raw.send(body);
            RpcReply garbage = raw.reply();
            assertEquals(AcceptStat.GARBAGE_ARGS, garbage.acceptStat());
            assertEquals(AuthFlavor.RPCSEC_GSS, garbage.verifier().flavor());
            assertEquals(1, gss.stats().badBodies());

            // The connection and the context still work.
            byte[] fine = raw.seal(context, ECHO, new byte[] {47});
            raw.send(fine);
            assertTrue(raw.reply().isSuccess());
        }
        assertArrayEquals(new byte[] {48}, echo(client, context, new byte[] {48}));
    }

    @Test
    void garbageTokensUnderPrivacyAreRefusedAndTheContextGoesOn() throws Exception {
        startServer(RpcGssLimits.DEFAULT);
        RpcClient client = connect();
        RpcGssClientContext context = establish(client, RpcGssService.PRIVACY);
        try (Raw raw = new Raw()) {
            // A verifier of random bytes (the MIC token's length kept): RPCSEC_GSS_CREDPROBLEM.
            byte[] randomMic = raw.seal(context, ECHO, new byte[] {1});
            ByteBuf b = Unpooled.wrappedBuffer(randomMic);
            int verifierAt = 32 + ((b.getInt(28) + 3) & ~3);
            byte[] noise = new byte[b.getInt(verifierAt + 4)];
            ThreadLocalRandom.current().nextBytes(noise);
            System.arraycopy(noise, 0, randomMic, verifierAt + 8, noise.length);
            raw.send(randomMic);
            assertEquals(AuthStat.RPCSEC_GSS_CREDPROBLEM, raw.reply().authStat());
            // A privacy token altered inside (its header kept): GARBAGE_ARGS.
            byte[] sealed = raw.seal(context, ECHO, new byte[100]);
            sealed[sealed.length - 20] ^= 0x40;
            raw.send(sealed);
            assertEquals(AcceptStat.GARBAGE_ARGS, raw.reply().acceptStat());
            // A privacy body that is not even a token.
            byte[] junk = raw.seal(context, ECHO, new byte[100]);
            java.util.Arrays.fill(junk, headerEnd(junk) + 4, junk.length, (byte) 0x5a);
            raw.send(junk);
            assertEquals(AcceptStat.GARBAGE_ARGS, raw.reply().acceptStat());
            assertEquals(2, gss.stats().badBodies());
            assertEquals(1, gss.stats().badVerifiers());
        }
        assertArrayEquals(new byte[] {9}, echo(client, context, new byte[] {9}));
    }

    /** The offset just after the verifier of an encoded call. */
    private static int headerEnd(byte[] record) {
        ByteBuf b = Unpooled.wrappedBuffer(record);
        int credLen = b.getInt(28);
        int verfAt = 32 + ((credLen + 3) & ~3);
        int verfLen = b.getInt(verfAt + 4);
        return verfAt + 8 + ((verfLen + 3) & ~3);
    }

    @Test
    void destroyedHandleMalformedCredentialAndOversizedToken() throws Exception {
        startServer(RpcGssLimits.DEFAULT.withMaxInitToken(4096));
        RpcClient client = connect();
        RpcGssClientContext context = establish(client, RpcGssService.NONE);
        try (Raw raw = new Raw()) {
            byte[] late = raw.seal(context, 0, null);
            context.destroy(client);
            raw.send(late);
            assertEquals(AuthStat.RPCSEC_GSS_CREDPROBLEM, raw.reply().authStat());
            assertEquals(1, gss.stats().unknownHandles());

            // A credential of version 2.
            ByteBuf cred = Unpooled.buffer().writeInt(2).writeInt(0).writeInt(1).writeInt(1).writeInt(0);
            byte[] v2 = encode(new RpcCall(7, PROG, VERS, 0, OpaqueAuth.of(AuthFlavor.RPCSEC_GSS,
                    java.util.Arrays.copyOf(cred.array(), cred.readableBytes()))), null);
            raw.send(v2);
            assertEquals(AuthStat.AUTH_BADCRED, raw.reply().authStat());
            assertEquals(1, gss.stats().badCredentials());

            // An INIT whose token claims 1 MiB (only 4 bytes follow): refused before anything is allocated.
            ByteBuf init = Unpooled.buffer().writeInt(1).writeInt(1).writeInt(0).writeInt(1).writeInt(0);
            byte[] huge = encode(new RpcCall(8, PROG, VERS, 0, OpaqueAuth.of(AuthFlavor.RPCSEC_GSS,
                    java.util.Arrays.copyOf(init.array(), init.readableBytes()))),
                    Unpooled.buffer().writeInt(1 << 20).writeInt(0));
            raw.send(huge);
            assertEquals(AcceptStat.GARBAGE_ARGS, raw.reply().acceptStat());
            // An INIT with a token that is no GSS token: the GSS failure in the result.
            byte[] junk = encode(new RpcCall(9, PROG, VERS, 0, OpaqueAuth.of(AuthFlavor.RPCSEC_GSS,
                    java.util.Arrays.copyOf(init.array(), init.readableBytes()))),
                    Unpooled.buffer().writeInt(8).writeLong(0x0102030405060708L));
            raw.send(junk);
            RpcReply initReply = raw.reply();
            assertTrue(initReply.isSuccess());
            assertEquals(2, gss.stats().initFailures());
            assertEquals(0, gss.contexts());
        }
        // The server still creates contexts.
        RpcGssClientContext fresh = establish(client, RpcGssService.PRIVACY);
        assertArrayEquals(new byte[] {5}, echo(client, fresh, new byte[] {5}));
    }

    private static byte[] encode(RpcCall call, ByteBuf args) {
        ByteBuf b = Unpooled.buffer();
        RpcMessageCodec.encodeHeader(call, b);
        if (args != null) {
            b.writeBytes(args);
        }
        return java.util.Arrays.copyOf(b.array(), b.readableBytes());
    }
}
