package dev.rpcrdma.examples;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.gss.Krb5Credentials;
import dev.rpcrdma.oncrpc.gss.RpcGssAuthenticator;
import dev.rpcrdma.oncrpc.gss.RpcGssClientContext;
import dev.rpcrdma.oncrpc.gss.RpcGssService;
import dev.rpcrdma.oncrpc.message.AuthStat;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.server.RpcProtection;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.ietf.jgss.GSSCredential;

import java.net.InetSocketAddress;
import java.nio.file.Path;

/**
 * An ECHO service that requires Kerberos with integrity (krb5i), and a client calling it, over RPC-over-RDMA.
 * Arguments: server principal, its keytab, client principal, its keytab (krb5.conf: the system's, or the
 * {@code java.security.krb5.conf} property).
 */
public final class Krb5iEchoOverRdma {
    static final int PROG = 0x2000009A, VERS = 1, ECHO = 1;

    public static void main(String[] args) throws Exception {
        String serverPrincipal = args[0], clientPrincipal = args[2];
        GSSCredential acceptor = Krb5Credentials.acceptor(serverPrincipal, Path.of(args[1]));
        RpcProgramRegistry registry = new RpcProgramRegistry().registerNull(PROG, VERS)
                .register(PROG, VERS, ECHO, (call, in) -> {
                    if (call.protection() == RpcProtection.NONE) {        // sys or krb5: not enough here
                        call.replyAuthError(AuthStat.AUTH_TOOWEAK);
                        return;
                    }
                    System.out.println("ECHO for " + call.identity() + " (" + call.protection() + ")");
                    XdrPayload results = call.newPayload();
                    results.writer().writeOpaque(in.readOpaque(1 << 20));
                    call.replySuccess(results);                           // checksummed like the call
                });
        RpcDispatcher dispatcher = new RpcDispatcher(registry, new RpcStats())
                .withAuthenticator(new RpcGssAuthenticator(acceptor));   // RPCSEC_GSS calls are checked here

        EventLoopGroup group = new MultiThreadIoEventLoopGroup(
                RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(RdmaFabric.SOFTWARE)));
        try {
            Channel server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                    .childHandler(new RpcRdmaServerInitializer(dispatcher))
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();

            RpcClient client = RpcClient.of(new Bootstrap().group(group).channel(RdmaChannel.class)
                    .handler(new RpcRdmaClientInitializer()).connect(server.localAddress()).sync().channel());
            GSSCredential alice = Krb5Credentials.initiator(clientPrincipal, Path.of(args[3]));   // asks the KDC
            RpcGssClientContext krb5i = RpcGssClientContext.establish(client, PROG, VERS, alice,
                    Krb5Credentials.principalName(serverPrincipal), RpcGssService.INTEGRITY);
            XdrPayload echoArgs = client.newPayload();
            echoArgs.writer().writeOpaque(new byte[100_000]);   // protected: one token, a Long Call, no DDP
            byte[] echoed = client.callAndWait(PROG, VERS, ECHO, echoArgs, r -> r.readOpaque(1 << 20),
                    krb5i.callOptions());
            System.out.println("krb5i client: " + echoed.length + " bytes echoed");
            krb5i.destroy(client);
            client.channel().close().sync();
            server.close().sync();
        } finally {
            group.shutdownGracefully().sync();
        }
    }
}
