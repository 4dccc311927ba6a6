package dev.rpcrdma.oncrpc.interop;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.BlockingRpcClient;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcReplyDecoder;
import dev.rpcrdma.oncrpc.client.RpcReplyException;
import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.AuthSysCredential;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcConfig;
import dev.rpcrdma.oncrpc.tcp.TcpRpcServerInitializer;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Interoperability with an independent ONC RPC implementation over TCP: dCache oncrpc4j 3.4.2 (Grizzly), the
 * library Java users run today. Both directions: our client against its server, its client against our server,
 * with AUTH_NONE and AUTH_SYS credentials, record-marked messages of several sizes (RFC 5531 §11: oncrpc4j reads
 * records of one or more fragments and writes one fragment per record), and the accepted-error statuses.
 */
class Oncrpc4jInteropTest {

    private static final int PROG = 0x2004F0F0;
    private static final int VERS = 3;
    private static final int ECHO = 1;
    private static final int WHOAMI = 2;
    private static final int[] SIZES = {0, 1, 3, 1024, 65_537, 1 << 20};

    /** {@code opaque<>} as an oncrpc4j XDR type. */
    static final class Opaque implements XdrAble {
        byte[] data;

        Opaque() {
        }

        Opaque(byte[] data) {
            this.data = data;
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            data = xdr.xdrDecodeDynamicOpaque();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws IOException {
            xdr.xdrEncodeDynamicOpaque(data);
        }
    }

    /** {@code struct { int uid; int gid; string machine<255>; }}: what the server saw in an AUTH_SYS credential. */
    static final class Identity implements XdrAble {
        int uid;
        int gid;
        String machine;

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            uid = xdr.xdrDecodeInt();
            gid = xdr.xdrDecodeInt();
            machine = xdr.xdrDecodeString();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws IOException {
            xdr.xdrEncodeInt(uid);
            xdr.xdrEncodeInt(gid);
            xdr.xdrEncodeString(machine);
        }
    }

    private static byte[] pattern(int size) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (i * 31 + size);
        }
        return b;
    }

    private OncRpcSvc theirServer;
    private OncRpcClient theirClient;
    private EventLoopGroup group;
    private Channel ourServer;

    @AfterEach
    void stop() throws Exception {
        if (theirClient != null) {
            theirClient.close();
        }
        if (theirServer != null) {
            theirServer.stop();
        }
        if (ourServer != null) {
            ourServer.close().sync();
        }
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void ourClientCallsTheirServer() throws Exception {
        theirServer = new OncRpcSvcBuilder().withTCP().withoutAutoPublish().withBindAddress("127.0.0.1")
                .withMinPort(40000).withMaxPort(60000).withSameThreadIoStrategy()
                .withServiceName("interop-oncrpc4j").build();
        theirServer.register(new OncRpcProgram(PROG, VERS), call -> {
            switch (call.getProcedure()) {
                case 0:
                    call.retrieveCall(XdrVoid.XDR_VOID);
                    call.reply(XdrVoid.XDR_VOID);
                    break;
                case ECHO:
                    Opaque args = new Opaque();
                    call.retrieveCall(args);
                    call.reply(args);
                    break;
                case WHOAMI:
                    call.retrieveCall(XdrVoid.XDR_VOID);
                    Identity id = new Identity();
                    RpcAuthTypeUnix unix = (RpcAuthTypeUnix) call.getCredential();
                    id.uid = unix.uid();
                    id.gid = unix.gid();
                    id.machine = "oncrpc4j";
                    call.reply(id);
                    break;
                default:
                    call.failProcedureUnavailable();
            }
        });
        theirServer.start();
        InetSocketAddress address = theirServer.getInetSocketAddress(IpProtocolType.TCP);

        Bootstrap bootstrap = new Bootstrap().channel(NioSocketChannel.class)
                .handler(new TcpRpcClientInitializer(new RpcStats(), TcpRpcConfig.DEFAULT, Duration.ofSeconds(20)));
        try (BlockingRpcClient client = BlockingRpcClient.connect(bootstrap, NioIoHandler.newFactory(), address,
                Duration.ofSeconds(10))) {
            client.callNull(PROG, VERS);
            for (int size : SIZES) {
                byte[] data = pattern(size);
                XdrPayload args = client.newPayload();
                args.writer().writeOpaque(data);
                assertArrayEquals(data, client.call(PROG, VERS, ECHO, args, r -> r.readOpaque(2 << 20)),
                        "echo of " + size + " bytes through oncrpc4j");
            }
            AuthSysCredential cred = new AuthSysCredential(7, "interop-host", 1234, 5678, 1, 2, 3);
            int[] seen = client.call(PROG, VERS, WHOAMI, client.newPayload(),
                    r -> new int[] {r.readInt(), r.readInt()},
                    CallOptions.DEFAULT.withCredential(cred.toOpaqueAuth()));
            assertArrayEquals(new int[] {1234, 5678}, seen, "oncrpc4j decoded our AUTH_SYS credential");

            RpcReplyException unavailable = assertThrows(RpcReplyException.class,
                    () -> client.call(PROG, VERS, 99, client.newPayload(), RpcReplyDecoder.VOID));
            assertEquals(AcceptStat.PROC_UNAVAIL, unavailable.reply().acceptStat());
            // oncrpc4j registers (program, version) pairs and answers an unknown version with PROG_UNAVAIL (where
            // RFC 5531 §9 has PROG_MISMATCH and our dispatcher sends it): we decode what it sends.
            RpcReplyException otherVersion = assertThrows(RpcReplyException.class,
                    () -> client.call(PROG, VERS + 1, 0, client.newPayload(), RpcReplyDecoder.VOID));
            assertEquals(AcceptStat.PROG_UNAVAIL, otherVersion.reply().acceptStat());
        }
    }

    @Test
    void theirClientCallsOurServer() throws Exception {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        RpcProgramRegistry registry = new RpcProgramRegistry()
                .registerNull(PROG, VERS)
                .register(PROG, VERS, ECHO, (call, args) -> {
                    XdrPayload results = call.newPayload();
                    results.writeDdpOpaque(args.readOpaqueSlice(2 << 20));
                    call.replySuccess(results);
                })
                .register(PROG, VERS, WHOAMI, (call, args) -> {
                    XdrPayload results = call.newPayload();
                    results.writer().writeInt(call.authSys().uid()).writeInt(call.authSys().gid())
                            .writeString(call.authSys().machineName());
                    call.replySuccess(results);
                });
        RpcStats stats = new RpcStats();
        ourServer = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new TcpRpcServerInitializer(new RpcDispatcher(registry, stats)))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        InetSocketAddress address = (InetSocketAddress) ourServer.localAddress();

        theirClient = new OncRpcClient(address.getAddress(), IpProtocolType.TCP, address.getPort());
        RpcTransport transport = theirClient.connect();
        RpcCall none = new RpcCall(PROG, VERS, new RpcAuthTypeNone(), transport);
        none.call(0, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, 10, TimeUnit.SECONDS);
        for (int size : SIZES) {
            byte[] data = pattern(size);
            Opaque result = new Opaque();
            none.call(ECHO, new Opaque(data), result, 10, TimeUnit.SECONDS);
            assertArrayEquals(data, result.data, "oncrpc4j's echo of " + size + " bytes through our server");
        }
        RpcCall unix = new RpcCall(PROG, VERS, new RpcAuthTypeUnix(4321, 8765, new int[] {9, 10}, 11,
                "their-host"), transport);
        Identity id = new Identity();
        unix.call(WHOAMI, XdrVoid.XDR_VOID, id, 10, TimeUnit.SECONDS);
        assertEquals(4321, id.uid, "we decoded oncrpc4j's AUTH_SYS credential");
        assertEquals(8765, id.gid);
        assertEquals("their-host", id.machine);

        // Accepted errors reach oncrpc4j's client as its own exceptions.
        assertThrows(IOException.class, () -> none.call(99, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, 10,
                TimeUnit.SECONDS), "PROC_UNAVAIL");
        RpcCall otherVersion = new RpcCall(PROG, VERS + 5, new RpcAuthTypeNone(), transport);
        assertThrows(IOException.class, () -> otherVersion.call(0, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, 10,
                TimeUnit.SECONDS), "PROG_MISMATCH");
        assertEquals(0, stats.malformedMessages());
    }
}
