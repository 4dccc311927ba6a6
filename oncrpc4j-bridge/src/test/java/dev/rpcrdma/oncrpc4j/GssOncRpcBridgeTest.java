package dev.rpcrdma.oncrpc4j;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.gss.Krb5Credentials;
import dev.rpcrdma.oncrpc.gss.RpcGssClientContext;
import dev.rpcrdma.oncrpc.gss.RpcGssException;
import dev.rpcrdma.oncrpc.gss.RpcGssService;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.testing.Krb5Realm;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.gss.GssSessionManager;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.ietf.jgss.GSSCredential;
import org.ietf.jgss.GSSException;
import org.ietf.jgss.GSSName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.security.auth.Subject;
import javax.security.auth.kerberos.KerberosPrincipal;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A service built for oncrpc4j's {@link GssSessionManager} (what {@code OncRpcSvcBuilder.withGssSessionManager}
 * takes), unchanged behind {@link OncRpcBridge#withGssSessionManager}, over TCP and over RPC-over-RDMA (software
 * fabric), against a real MIT KDC: this project's RPCSEC_GSS client establishes a context with oncrpc4j's filter and
 * calls with krb5, krb5i and krb5p; the program sees the principal in {@code call.getCredential().getSubject()}.
 */
class GssOncRpcBridgeTest {
    static final int PROG = 0x20000457;
    static final int VERS = 1;
    static final int WHOAMI_ECHO = 1;

    private static Krb5Realm realm;
    private static Path serverKeytab;
    private static GSSCredential alice;
    private static GSSName target;

    @BeforeAll
    static void realm() throws Exception {
        realm = Krb5Realm.start();
        serverKeytab = realm.addPrincipal("nfs/localhost");
        alice = Krb5Credentials.initiator(Krb5Realm.name("alice"), realm.addPrincipal("alice"));
        target = Krb5Credentials.principalName(Krb5Realm.name("nfs/localhost"));
    }

    @AfterAll
    static void stopRealm() {
        if (realm != null) {
            realm.close();
        }
    }

    /** An opaque both ways, and the caller's principal names before it in the reply. */
    static final class Echo implements XdrAble {
        String who = "";
        byte[] data;

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
            data = xdr.xdrDecodeDynamicOpaque();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeString(who);
            xdr.xdrEncodeDynamicOpaque(data);
        }
    }

    /** The program as it would be written for oncrpc4j's own server: NULL, and WHOAMI_ECHO. */
    static final RpcDispatchable PROGRAM = call -> {
        if (call.getProcedure() == 0) {
            call.reply(XdrVoid.XDR_VOID);
            return;
        }
        Echo echo = new Echo();
        call.retrieveCall(echo);
        echo.who = call.getCredential().getSubject().getPrincipals().stream().map(Object::toString).sorted()
                .collect(Collectors.joining(","));
        call.reply(echo);
    };

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "rdma", "tcp same-thread", "rdma same-thread"})
    void aGssSessionManagerServiceWorksUnchanged(String permutation) throws Exception {
        String transport = permutation.split(" ")[0];
        boolean sameThread = permutation.endsWith("same-thread");
        GssSessionManager manager = new GssSessionManager((t, context) -> {
            Subject subject = new Subject();
            try {
                subject.getPrincipals().add(new KerberosPrincipal(context.getSrcName().toString()));
            } catch (GSSException e) {
                throw new IllegalStateException(e);
            }
            return subject;
        }, Krb5Realm.name("nfs/localhost"), serverKeytab.toString());
        ExecutorService executor = sameThread ? null : Executors.newFixedThreadPool(2);
        Map<OncRpcProgram, RpcDispatchable> programs = Map.of(new OncRpcProgram(PROG, VERS), PROGRAM);
        OncRpcBridge bridge = (sameThread ? OncRpcBridge.of(programs) : OncRpcBridge.of(programs, executor))
                .withGssSessionManager(manager);
        boolean rdma = transport.equals("rdma");
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, rdma
                ? RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(RdmaFabric.SOFTWARE))
                : NioIoHandler.newFactory());
        try {
            InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
            Channel server = new ServerBootstrap().group(group)
                    .channel(rdma ? RdmaServerChannel.class : NioServerSocketChannel.class)
                    .childHandler(rdma ? bridge.rdma() : bridge.tcp()).bind(any).sync().channel();
            RpcClient client = RpcClient.of(new Bootstrap().group(group)
                    .channel(rdma ? RdmaChannel.class : NioSocketChannel.class)
                    .handler(rdma ? new RpcRdmaClientInitializer() : new TcpRpcClientInitializer())
                    .connect(server.localAddress()).sync().channel());
            try {
                for (RpcGssService service : RpcGssService.values()) {
                    RpcGssClientContext context = RpcGssClientContext.establish(client, PROG, VERS, alice, target,
                            service);
                    if (service != RpcGssService.PRIVACY) {
                        client.callAndWait(PROG, VERS, 0, XdrPayload.empty(), r -> null, context.callOptions());
                    } else {
                        // oncrpc4j 3.4.2 wraps a krb5p reply with the privacy state its call's unwrap left in a
                        // shared MessageProp: a procedure that replies without reading its (empty) arguments, as
                        // NULL does, answers with an integrity-only token. This client refuses it (RFC 2203 §5.3.2).
                        RpcGssException e = assertThrows(RpcGssException.class, () -> client.callAndWait(PROG,
                                VERS, 0, XdrPayload.empty(), r -> null, context.callOptions()));
                        assertTrue(e.getMessage().contains("not encrypted"), e.getMessage());
                    }
                    byte[] data = new byte[20_000];
                    ThreadLocalRandom.current().nextBytes(data);
                    XdrPayload args = client.newPayload();
                    args.writer().writeOpaque(data);
                    Object[] reply = client.callAndWait(PROG, VERS, WHOAMI_ECHO, args,
                            r -> new Object[] {r.readString(1024), r.readOpaque(1 << 20)}, context.callOptions());
                    assertEquals(Krb5Realm.name("alice"), reply[0], service + ": the subject the program saw");
                    assertArrayEquals(data, (byte[]) reply[1], service.toString());
                    // (No RPCSEC_GSS_DESTROY: oncrpc4j's filter destroys the context without a reply.)
                }
            } finally {
                client.channel().close().sync();
                server.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            if (executor != null) {
                executor.shutdown();
            }
        }
    }
}
