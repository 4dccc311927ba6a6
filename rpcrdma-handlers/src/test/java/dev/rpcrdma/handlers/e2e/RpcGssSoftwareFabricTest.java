package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcCallSecurity;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcException;
import dev.rpcrdma.oncrpc.client.RpcReplyException;
import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import dev.rpcrdma.oncrpc.gss.Krb5Credentials;
import dev.rpcrdma.oncrpc.gss.RpcGssAuthenticator;
import dev.rpcrdma.oncrpc.gss.RpcGssClientContext;
import dev.rpcrdma.oncrpc.gss.RpcGssService;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.testing.Krb5Realm;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.ietf.jgss.GSSCredential;
import org.ietf.jgss.GSSName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RPCSEC_GSS with Kerberos V5 (a real MIT KDC) over RPC-over-RDMA on the software fabric: the same authenticator
 * and client context as over TCP, and RFC 8166 §8.2.2: with krb5 the arguments and results still move by DDP (Read
 * and Write chunks); with krb5i and krb5p nothing does (a Long Call and a Reply chunk carry the protected bodies).
 */
class RpcGssSoftwareFabricTest {

    private static final int PROG = 0x2004F0C6;
    private static final int VERS = 1;
    private static final int ECHO = 1;
    private static final int SIZE = 100_000;

    private static Krb5Realm realm;
    private static GSSCredential acceptor;
    private static GSSCredential alice;
    private static GSSName target;

    @BeforeAll
    static void realm() throws Exception {
        realm = Krb5Realm.start();
        Path serverKeytab = realm.addPrincipal("nfs/localhost");
        Path aliceKeytab = realm.addPrincipal("alice");
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

    @ParameterizedTest
    @EnumSource(RpcGssService.class)
    void echoUnderEachService(RpcGssService service) throws Exception {
        run(service, false);
    }

    /**
     * A requester that offers a Write chunk for a protected reply anyway (RFC 8166 §8.2.2 says it should not): the
     * responder moves nothing by DDP, the Write chunk comes back unused, the reply is read as usual.
     */
    @ParameterizedTest
    @EnumSource(value = RpcGssService.class, names = {"INTEGRITY", "PRIVACY"})
    void aWriteChunkOfferedForAProtectedReplyStaysUnused(RpcGssService service) throws Exception {
        run(service, true);
    }

    /**
     * A requester that reduces the protected body anyway (RFC 8166 §8.2.2.3 forbids it): the integrity data or the
     * privacy seal travels in a Read chunk at a non-zero position. The responder refuses the call with GARBAGE_ARGS
     * (counted, logged), the connection and the context go on.
     */
    @ParameterizedTest
    @EnumSource(value = RpcGssService.class, names = {"INTEGRITY", "PRIVACY"})
    void aProtectedBodyReducedByDdpIsRefused(RpcGssService service) throws Exception {
        RpcGssAuthenticator gss = new RpcGssAuthenticator(acceptor);
        RpcProgramRegistry registry = new RpcProgramRegistry().registerNull(PROG, VERS)
                .register(PROG, VERS, ECHO, (call, in) -> {
                    XdrPayload results = call.newPayload();
                    results.writer().writeOpaque(in.readOpaque(1 << 20));
                    call.replySuccess(results);
                });
        RpcRdmaStats serverStats = new RpcRdmaStats();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2,
                RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(RdmaFabric.SOFTWARE)));
        try {
            Channel server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                    .childHandler(new RpcRdmaServerInitializer(new RpcDispatcher(registry, new RpcStats())
                            .withAuthenticator(gss), RpcRdmaConfig.DEFAULT, serverStats))
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            RpcClient client = RpcClient.of(new Bootstrap().group(group).channel(RdmaChannel.class)
                    .handler(new RpcRdmaClientInitializer(new RpcStats(), RpcRdmaConfig.DEFAULT, new RpcRdmaStats(),
                            Duration.ofSeconds(30)))
                    .connect(server.localAddress()).sync().channel());
            try {
                RpcGssClientContext context = RpcGssClientContext.establish(client, PROG, VERS, alice, target,
                        service);
                byte[] data = new byte[SIZE];
                ThreadLocalRandom.current().nextBytes(data);
                XdrPayload args = client.newPayload();
                args.writer().writeOpaque(data);
                RpcReplyException refused = assertThrows(RpcReplyException.class, () -> client.callAndWait(PROG,
                        VERS, ECHO, args, r -> r.readOpaque(1 << 20),
                        CallOptions.DEFAULT.withSecurity(reducing(context)).withReplyHints(0, SIZE + 1024)));
                assertEquals(AcceptStat.GARBAGE_ARGS, refused.reply().acceptStat());
                assertEquals(1, gss.stats().reducedBodies());
                assertTrue(serverStats.readChunks() > 0, "the protected body came in a Read chunk");
                XdrPayload again = client.newPayload();
                again.writer().writeOpaque(data);
                assertArrayEquals(data, client.callAndWait(PROG, VERS, ECHO, again, r -> r.readOpaque(1 << 20),
                        context.callOptions().withReplyHints(0, SIZE + 1024)), "the context goes on");
            } finally {
                client.channel().close().sync();
                server.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * {@code context}'s calls with the protected body reduced: {@code databody_integ} or {@code databody_priv} as
     * a DDP-eligible item (a Read chunk), the checksum inline after it.
     */
    private static RpcCallSecurity reducing(RpcGssClientContext context) {
        return new RpcCallSecurity() {
            @Override
            public Sealed seal(int xid, int program, int version, int procedure, int[] replyDdpItems,
                               int maxReplySize, XdrPayload args, ByteBufAllocator alloc) throws RpcException {
                Sealed sealed = context.seal(xid, program, version, procedure, replyDdpItems, maxReplySize, args,
                        alloc);
                OutboundRpcMessage original = sealed.message();
                ByteBuf inline = original.body().toInlineBuffer(alloc);
                XdrPayload reduced = XdrPayload.newPayload(alloc);
                try {
                    XdrReader in = new XdrReader(inline);
                    reduced.writeDdpOpaque(io.netty.buffer.Unpooled.wrappedBuffer(in.readOpaque(1 << 20)));
                    if (context.service() == RpcGssService.INTEGRITY) {
                        reduced.writer().writeOpaque(in.readOpaque(1024));
                    }
                } catch (dev.rpcrdma.oncrpc.xdr.XdrException e) {
                    throw new AssertionError(e);
                } finally {
                    inline.release();
                }
                OutboundRpcMessage message = new OutboundRpcMessage(original.header(), reduced);
                original.release();
                return new Sealed(message, sealed.state());
            }

            @Override
            public ByteBuf open(Object state, RpcReply reply, XdrReader results) throws RpcException {
                return context.open(state, reply, results);
            }
        };
    }

    /** {@code context}'s calls, offering one Write chunk of {@link #SIZE} bytes whatever the service. */
    private static RpcCallSecurity offeringWriteChunks(RpcGssClientContext context) {
        return new RpcCallSecurity() {
            @Override
            public Sealed seal(int xid, int program, int version, int procedure, int[] replyDdpItems,
                               int maxReplySize, XdrPayload args, ByteBufAllocator alloc) throws RpcException {
                Sealed sealed = context.seal(xid, program, version, procedure, replyDdpItems, maxReplySize, args,
                        alloc);
                OutboundRpcMessage original = sealed.message();
                RpcCall sealedHeader = (RpcCall) original.header();
                RpcCall header = sealedHeader.withReplyHints(new int[] {SIZE}, sealedHeader.maxReplySize());
                OutboundRpcMessage message = new OutboundRpcMessage(header, original.body().retain());
                original.release();
                return new Sealed(message, sealed.state());
            }

            @Override
            public ByteBuf open(Object state, RpcReply reply, XdrReader results) throws RpcException {
                return context.open(state, reply, results);
            }
        };
    }

    private void run(RpcGssService service, boolean offerWriteChunk) throws Exception {
        RpcGssAuthenticator gss = new RpcGssAuthenticator(acceptor);
        RpcProgramRegistry registry = new RpcProgramRegistry().registerNull(PROG, VERS)
                .register(PROG, VERS, ECHO, (call, in) -> {
                    XdrPayload results = call.newPayload();
                    results.writeDdpOpaque(in.readDdpOpaque(1 << 20));
                    call.replySuccess(results);
                });
        RpcRdmaStats serverStats = new RpcRdmaStats();
        RpcRdmaStats clientStats = new RpcRdmaStats();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2,
                RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(RdmaFabric.SOFTWARE)));
        try {
            Channel server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                    .childHandler(new RpcRdmaServerInitializer(new RpcDispatcher(registry, new RpcStats())
                            .withAuthenticator(gss), RpcRdmaConfig.DEFAULT, serverStats))
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            RpcClient client = RpcClient.of(new Bootstrap().group(group).channel(RdmaChannel.class)
                    .handler(new RpcRdmaClientInitializer(new RpcStats(), RpcRdmaConfig.DEFAULT, clientStats,
                            Duration.ofSeconds(30)))
                    .connect(server.localAddress()).sync().channel());
            try {
                RpcGssClientContext context = RpcGssClientContext.establish(client, PROG, VERS, alice, target,
                        service);
                client.callAndWait(PROG, VERS, 0, XdrPayload.empty(), r -> null, context.callOptions());
                byte[] data = new byte[SIZE];
                ThreadLocalRandom.current().nextBytes(data);
                XdrPayload args = client.newPayload();
                args.writeDdpOpaque(io.netty.buffer.Unpooled.wrappedBuffer(data));
                CallOptions options = (offerWriteChunk
                        ? CallOptions.DEFAULT.withSecurity(offeringWriteChunks(context)) : context.callOptions())
                        .withReplyHints(SIZE, SIZE + 1024);
                byte[] echoed = client.callAndWait(PROG, VERS, ECHO, args, r -> r.readOpaque(1 << 20), options);
                assertArrayEquals(data, echoed);
                if (service == RpcGssService.NONE) {
                    assertTrue(serverStats.readChunks() > 0, "krb5: the argument came by RDMA Read");
                    assertTrue(serverStats.writeChunksUsed() > 0, "krb5: the result went by RDMA Write");
                } else {
                    assertEquals(0, serverStats.writeChunksUsed(), service + ": no Write chunk");
                    assertEquals(1, serverStats.longCalls(), service + ": the protected call as a Long Call");
                    assertEquals(1, serverStats.longReplies(), service + ": the protected reply in a Reply chunk");
                }
                context.destroy(client);
                assertEquals(1, gss.stats().contextsDestroyed());
            } finally {
                client.channel().close().sync();
                server.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
