package dev.rpcrdma.oncrpc.rpcbind;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcServerInitializer;
import dev.rpcrdma.oncrpc.tcp.TestTransport;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Interoperability with peers we did not write: our client against the real rpcbind (portmapper v2 DUMP and
 * GETPORT, rpcbind v3/v4 GETADDR, SET/UNSET), and the real {@code rpcinfo} client against our server (NULL of
 * each version, version discovery through our PROG_MISMATCH answer, listing in {@code rpcinfo -p}).
 */
class RpcbindInteropTest {

    private static EventLoopGroup group;
    private static Channel rpcbindChannel;
    private static RpcbindClient rpcbind;

    @BeforeAll
    static void connect() throws Exception {
        LocalRpcbind.ensureRunning();
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        rpcbindChannel = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .handler(new TcpRpcClientInitializer()).connect(LocalRpcbind.ADDRESS).sync().channel();
        rpcbind = new RpcbindClient(RpcClient.of(rpcbindChannel));
    }

    @AfterAll
    static void disconnect() throws InterruptedException {
        if (rpcbindChannel != null) {
            rpcbindChannel.close().sync();
        }
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
        LocalRpcbind.stopIfStarted();
    }

    private static Set<String> rpcinfoP() throws Exception {
        LocalRpcbind.Result r = LocalRpcbind.run(LocalRpcbind.rpcinfo().toString(), "-p", "127.0.0.1");
        assertEquals(0, r.exitCode, r.toString());
        Set<String> rows = new HashSet<>();
        for (String line : r.lines()) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 4 && f[0].matches("\\d+")) {
                rows.add(f[0] + " v" + f[1] + " " + f[2] + " port " + f[3]);
            }
        }
        return rows;
    }

    @Test
    void portmapperDumpMatchesWhatRpcinfoLists() throws Exception {
        List<PortMapping> dump = rpcbind.pmapDump().get(10, TimeUnit.SECONDS);
        assertTrue(dump.contains(new PortMapping(RpcbindClient.PROGRAM, 2, PortMapping.IPPROTO_TCP, 111)),
                dump.toString());
        Set<String> ours = new HashSet<>();
        for (PortMapping m : dump) {
            ours.add(m.toString());
        }
        assertEquals(rpcinfoP(), ours);
    }

    @Test
    void portmapperGetPortFindsRpcbindItself() throws Exception {
        assertEquals(111, rpcbind.pmapGetPort(RpcbindClient.PROGRAM, 2, PortMapping.IPPROTO_TCP)
                .get(10, TimeUnit.SECONDS));
        assertEquals(0, rpcbind.pmapGetPort(0x2004F0EE, 1, PortMapping.IPPROTO_TCP).get(10, TimeUnit.SECONDS));
    }

    @Test
    void rpcbindGetAddrV3AndV4() throws Exception {
        for (int v : new int[] {RpcbindClient.RPCB_VERSION_3, RpcbindClient.RPCB_VERSION_4}) {
            String uaddr = rpcbind.getAddr(v, RpcbindClient.PROGRAM, 4, "tcp").get(10, TimeUnit.SECONDS);
            assertEquals(111, UniversalAddress.parse(uaddr).getPort(), uaddr);
            assertEquals("", rpcbind.getAddr(v, 0x2004F0EE, 1, "tcp").get(10, TimeUnit.SECONDS));
        }
        List<RpcbEntry> dump = rpcbind.rpcbDump(4).get(10, TimeUnit.SECONDS);
        assertTrue(dump.stream().anyMatch(e -> e.program() == RpcbindClient.PROGRAM && e.netid().equals("tcp")),
                dump.toString());
    }

    @Test
    void sameClientPipelineTalksToRpcbindOverItsUnixSocket() throws Exception {
        TestTransport.EPOLL.assumeAvailable();
        java.nio.file.Path socket = java.nio.file.Path.of("/run/rpcbind.sock");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.exists(socket),
                "SKIPPED: rpcbind has no AF_UNIX socket at " + socket);
        EventLoopGroup epoll = new MultiThreadIoEventLoopGroup(1, TestTransport.EPOLL.ioHandlerFactory());
        try {
            Channel ch = new Bootstrap().group(epoll).channel(io.netty.channel.epoll.EpollDomainSocketChannel.class)
                    .handler(new TcpRpcClientInitializer())
                    .connect(new io.netty.channel.unix.DomainSocketAddress(socket.toString())).sync().channel();
            RpcbindClient local = new RpcbindClient(RpcClient.of(ch));
            List<RpcbEntry> dump = local.rpcbDump(4).get(10, TimeUnit.SECONDS);
            assertTrue(dump.stream().anyMatch(e -> e.netid().equals("local")), dump.toString());
            ch.close().sync();
        } finally {
            epoll.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void realRpcinfoCallsOurServerRegisteredThroughOurClient(TestTransport transport) throws Exception {
        transport.assumeAvailable();
        int prog = 0x2004F0A0 + transport.ordinal();
        AtomicInteger nullCalls = new AtomicInteger();
        RpcProgramRegistry registry = new RpcProgramRegistry()
                .register(prog, 1, 0, (call, args) -> {
                    nullCalls.incrementAndGet();
                    call.replySuccess();
                })
                .register(prog, 2, 0, (call, args) -> {
                    nullCalls.incrementAndGet();
                    call.replySuccess();
                });
        EventLoopGroup serverGroup = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
        Channel server = new ServerBootstrap().group(serverGroup).channel(transport.serverChannel())
                .childHandler(new TcpRpcServerInitializer(new RpcDispatcher(registry, new RpcStats())))
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        String rpcinfo = LocalRpcbind.rpcinfo().toString();
        String progText = Integer.toString(prog);
        // Leftovers of an interrupted earlier run (rpcbind -w restores registrations) would make SET fail.
        rpcbind.unregister(prog, 1).get(10, TimeUnit.SECONDS);
        rpcbind.unregister(prog, 2).get(10, TimeUnit.SECONDS);
        try {
            // Version 1 through portmapper v2 PMAPPROC_SET, version 2 through rpcbind v4 RPCBPROC_SET (register()).
            assertTrue(rpcbind.pmapSet(new PortMapping(prog, 1, PortMapping.IPPROTO_TCP, port))
                    .get(10, TimeUnit.SECONDS), "PMAPPROC_SET refused");
            assertTrue(rpcbind.register(prog, 2, (InetSocketAddress) server.localAddress())
                    .get(10, TimeUnit.SECONDS), "RPCBPROC_SET refused");
            assertEquals(UniversalAddress.format((InetSocketAddress) server.localAddress()),
                    rpcbind.getAddr(RpcbindClient.RPCB_VERSION_4, prog, 2, "tcp").get(10, TimeUnit.SECONDS));

            Set<String> listed = rpcinfoP();
            System.out.println("rpcinfo -p 127.0.0.1 -> " + listed);
            assertTrue(listed.contains(prog + " v1 tcp port " + port), listed.toString());
            assertTrue(listed.contains(prog + " v2 tcp port " + port), listed.toString());

            for (String v : new String[] {"1", "2"}) {
                LocalRpcbind.Result r = LocalRpcbind.run(rpcinfo, "-t", "127.0.0.1", progText, v);
                System.out.println("rpcinfo -t 127.0.0.1 " + prog + " " + v + " -> " + r);
                assertEquals(0, r.exitCode, r.toString());
                assertTrue(r.output.contains("program " + prog + " version " + v + " ready and waiting"),
                        r.toString());
            }
            // Without a version rpcinfo probes with version 0, our PROG_MISMATCH(1, 2) tells it the range.
            LocalRpcbind.Result all = LocalRpcbind.run(rpcinfo, "-t", "127.0.0.1", progText);
            System.out.println("rpcinfo -t 127.0.0.1 " + prog + " -> " + all);
            assertEquals(0, all.exitCode, all.toString());
            assertTrue(all.output.contains("version 1 ready and waiting"), all.toString());
            assertTrue(all.output.contains("version 2 ready and waiting"), all.toString());
            // A version we do not serve, straight to our port: rpcinfo reports our PROG_MISMATCH range.
            LocalRpcbind.Result mismatch = LocalRpcbind.run(rpcinfo, "-n", Integer.toString(port), "-t",
                    "127.0.0.1", progText, "3");
            System.out.println("rpcinfo -n " + port + " -t 127.0.0.1 " + prog + " 3 -> " + mismatch);
            assertTrue(mismatch.exitCode != 0, mismatch.toString());
            assertTrue(mismatch.output.contains("low version = 1, high version = 2"), mismatch.toString());
            assertTrue(nullCalls.get() >= 4, "NULL calls seen: " + nullCalls.get());
        } finally {
            boolean removed1 = rpcbind.pmapUnset(prog, 1).get(10, TimeUnit.SECONDS);
            boolean removed2 = rpcbind.unregister(prog, 2).get(10, TimeUnit.SECONDS);
            server.close().sync();
            serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            assertTrue(removed1 && removed2, "UNSET refused: " + removed1 + ", " + removed2);
        }
        Set<String> after = rpcinfoP();
        assertFalse(after.stream().anyMatch(row -> row.startsWith(progText + " ")), after.toString());
        assertEquals(0, rpcbind.pmapGetPort(prog, 1, PortMapping.IPPROTO_TCP).get(10, TimeUnit.SECONDS));
    }
}
