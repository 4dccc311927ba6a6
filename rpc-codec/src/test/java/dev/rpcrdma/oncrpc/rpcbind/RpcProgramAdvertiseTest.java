package dev.rpcrdma.oncrpc.rpcbind;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.program.RpcProcedureSpec;
import dev.rpcrdma.oncrpc.program.RpcProgram;
import dev.rpcrdma.oncrpc.program.XdrCodec;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcServerInitializer;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RpcProgram#advertise}: a typed program registered with the machine's real rpcbind when its server is bound,
 * found there (by our client and by {@code rpcinfo}), and removed when the server closes. Skips loudly without
 * rpcbind ({@link LocalRpcbind}).
 */
class RpcProgramAdvertiseTest {

    static final RpcProcedureSpec<Integer, Integer> ADD_ONE =
            RpcProcedureSpec.of(1, "ADD_ONE", XdrCodec.INT, XdrCodec.INT);
    static final RpcProgram PROGRAM = RpcProgram.of(0x2004F0C8, 3, "advertised", ADD_ONE);

    private static java.util.List<RpcbEntry> rdmaEntries(RpcbindClient rpcbind) throws Exception {
        java.util.List<RpcbEntry> found = new java.util.ArrayList<>();
        for (RpcbEntry e : rpcbind.rpcbDump(RpcbindClient.RPCB_VERSION_4).get(10, TimeUnit.SECONDS)) {
            if (e.program() == PROGRAM.program() && e.netid().equals("rdma")) {
                found.add(e);
            }
        }
        return found;
    }

    @Test
    void registeredOnBindAndRemovedOnClose() throws Exception {
        LocalRpcbind.ensureRunning();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            RpcClient rpcbindRpc = RpcClient.of(new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .handler(new TcpRpcClientInitializer()).connect(LocalRpcbind.ADDRESS).sync().channel());
            RpcbindClient rpcbind = new RpcbindClient(rpcbindRpc);
            rpcbind.unregister(PROGRAM.program(), PROGRAM.version()).get(10, TimeUnit.SECONDS); // earlier leftovers
            RpcProgramRegistry registry = PROGRAM.service().implement(ADD_ONE, (call, n) -> n + 1).build()
                    .registerInto(new RpcProgramRegistry());
            Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new TcpRpcServerInitializer(new RpcDispatcher(registry, new RpcStats())))
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            assertTrue(PROGRAM.advertise(server, rpcbind).get(10, TimeUnit.SECONDS), "RPCBPROC_SET refused");
            String uaddr = rpcbind.getAddr(RpcbindClient.RPCB_VERSION_4, PROGRAM.program(), PROGRAM.version(), "tcp")
                    .get(10, TimeUnit.SECONDS);
            InetSocketAddress found = UniversalAddress.parse(uaddr);
            assertEquals(((InetSocketAddress) server.localAddress()).getPort(), found.getPort(), uaddr);
            LocalRpcbind.Result r = LocalRpcbind.run(LocalRpcbind.rpcinfo().toString(), "-t", "127.0.0.1",
                    Integer.toString(PROGRAM.program()), Integer.toString(PROGRAM.version()));
            assertEquals(0, r.exitCode, r.toString());
            // A client that found the server through rpcbind calls it.
            RpcClient client = RpcClient.of(new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .handler(new TcpRpcClientInitializer()).connect(found).sync().channel());
            assertEquals(42, PROGRAM.call(client, ADD_ONE, 41).get(10, TimeUnit.SECONDS));
            client.channel().close().sync();

            server.close().sync();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            String after;
            do {
                after = rpcbind.getAddr(RpcbindClient.RPCB_VERSION_4, PROGRAM.program(), PROGRAM.version(), "tcp")
                        .get(10, TimeUnit.SECONDS);
            } while (!after.isEmpty() && System.nanoTime() < deadline);
            assertEquals("", after, "unregistered when the server closed");

            // RPC-over-RDMA servers advertise under their own netid (RFC 5665): any bound channel will do here.
            Channel rdmaLike = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new TcpRpcServerInitializer(new RpcDispatcher(registry, new RpcStats())))
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            assertTrue(PROGRAM.advertise(rdmaLike, rpcbind, "rdma").get(10, TimeUnit.SECONDS));
            // rpcbind answers GETADDR only for netids in its netconfig (no "rdma" there): DUMP lists the entry.
            RpcbEntry expected = new RpcbEntry(PROGRAM.program(), PROGRAM.version(), "rdma",
                    UniversalAddress.format((InetSocketAddress) rdmaLike.localAddress()), "");
            assertTrue(rdmaEntries(rpcbind).stream().anyMatch(e -> e.address().equals(expected.address())),
                    rdmaEntries(rpcbind).toString());
            rdmaLike.close().sync();
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!rdmaEntries(rpcbind).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(java.util.List.of(), rdmaEntries(rpcbind), "unregistered when the server closed");
            rpcbindRpc.channel().close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            LocalRpcbind.stopIfStarted();
        }
    }
}
