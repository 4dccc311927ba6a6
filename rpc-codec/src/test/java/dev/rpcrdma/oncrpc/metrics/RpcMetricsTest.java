package dev.rpcrdma.oncrpc.metrics;

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

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Exact metric values after a known workload over TCP, on both sides, read in code and through JMX. */
class RpcMetricsTest {

    static final RpcProcedureSpec<byte[], byte[]> ECHO =
            RpcProcedureSpec.of(1, "ECHO", XdrCodec.opaque(4096), XdrCodec.opaque(4096));
    static final RpcProcedureSpec<Void, Void> FAIL = RpcProcedureSpec.of(2, "FAIL", XdrCodec.VOID, XdrCodec.VOID);
    static final RpcProgram PROGRAM = RpcProgram.of(0x2004F0D0, 1, "metered", ECHO, FAIL);

    @Test
    void perConnectionOnRequest() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        try (RpcMetrics server = new RpcMetrics("per-connection-server", RpcMetrics.Role.SERVER).register(PROGRAM)
                .perConnection(true).registerMBean()) {
            RpcProgramRegistry registry = PROGRAM.service().implement(ECHO, (call, data) -> data)
                    .implement(FAIL, (call, v) -> null).build().registerInto(new RpcProgramRegistry());
            Channel listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new TcpRpcServerInitializer(new RpcDispatcher(registry, new RpcStats(), server)))
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            RpcClient[] clients = new RpcClient[2];
            for (int c = 0; c < 2; c++) {
                clients[c] = RpcClient.of(new Bootstrap().group(group).channel(NioSocketChannel.class)
                        .handler(new TcpRpcClientInitializer()).connect(listener.localAddress()).sync().channel());
                for (int i = 0; i <= c; i++) {
                    PROGRAM.call(clients[c], ECHO, new byte[8]).get(10, TimeUnit.SECONDS);
                }
            }
            assertEquals(3, server.procedure(PROGRAM.program(), 1, 1).calls(), "the server adds its connections up");
            MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
            java.util.Set<ObjectName> children = mbeans.queryNames(
                    new ObjectName("dev.rpcrdma:type=RpcServer,name=per-connection-server,connection=*"), null);
            assertEquals(2, children.size(), children.toString());
            long[] perConnection = new long[2];
            int i = 0;
            for (ObjectName n : children) {
                perConnection[i++] = (Long) mbeans.getAttribute(n, "metered.ECHO.Calls");
            }
            java.util.Arrays.sort(perConnection);
            assertEquals(1, perConnection[0]);
            assertEquals(2, perConnection[1]);
            for (RpcClient c : clients) {
                c.channel().close().sync();
            }
            listener.close().sync();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!mbeans.queryNames(new ObjectName("dev.rpcrdma:type=RpcServer,name=per-connection-server,"
                    + "connection=*"), null).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(mbeans.queryNames(new ObjectName("dev.rpcrdma:type=RpcServer,name=per-connection-server,"
                    + "connection=*"), null).isEmpty(), "a connection's MBean goes when it closes");
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void knownWorkloadGivesExactCountsInCodeAndOverJmx() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        try (RpcMetrics server = new RpcMetrics("metrics-test-server", RpcMetrics.Role.SERVER).register(PROGRAM);
             RpcMetrics client = new RpcMetrics("metrics-test-client", RpcMetrics.Role.CLIENT).register(PROGRAM)) {
            RpcProgramRegistry registry = PROGRAM.service()
                    .implement(ECHO, (call, data) -> data)
                    .implement(FAIL, (call, v) -> {
                        throw new IllegalStateException("expected by the test");
                    })
                    .build().registerInto(new RpcProgramRegistry());
            Channel listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new TcpRpcServerInitializer(new RpcDispatcher(registry, new RpcStats(), server)))
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            RpcClient rpc = RpcClient.of(new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .handler(new TcpRpcClientInitializer()).connect(listener.localAddress()).sync().channel());
            rpc.handler().metrics(client);

            for (int i = 0; i < 5; i++) {
                PROGRAM.call(rpc, ECHO, new byte[100]).get(10, TimeUnit.SECONDS);
            }
            rpc.callNull(PROGRAM.program(), PROGRAM.version()).get(10, TimeUnit.SECONDS);
            assertThrows(ExecutionException.class, () -> PROGRAM.call(rpc, FAIL, null).get(10, TimeUnit.SECONDS));
            assertThrows(ExecutionException.class, () -> rpc.callNull(PROGRAM.program(), 9).get(10,
                    TimeUnit.SECONDS));
            assertThrows(ExecutionException.class, () -> rpc.callNull(0x2004F0D1, 1).get(10, TimeUnit.SECONDS));

            for (RpcMetrics m : new RpcMetrics[] {server, client}) {
                String side = m.role().toString();
                ProcedureMetrics echo = m.procedure(PROGRAM.program(), 1, 1);
                assertEquals("metered.ECHO", echo.name());
                assertEquals(5, echo.calls(), side);
                assertEquals(0, echo.errors(), side);
                assertEquals(5, echo.latency().getTotalCount(), side);
                assertTrue(echo.latency().getMaxValue() > 0, side);
                assertEquals(1, m.procedure(PROGRAM.program(), 1, 0).calls(), side + " NULL");
                assertEquals(1, m.procedure(PROGRAM.program(), 1, 2).errors(), side + " FAIL");
                assertEquals(2, m.unregistered().calls(), side + " version 9 and the unknown program");
                assertEquals(9, m.calls(), side);
                assertEquals(3, m.errors(), side);
                assertEquals(1, m.errors(RpcErrorKind.SYSTEM_ERR), side);
                assertEquals(1, m.errors(RpcErrorKind.PROG_MISMATCH), side);
                assertEquals(1, m.errors(RpcErrorKind.PROG_UNAVAIL), side);
                assertEquals(0, m.errors(RpcErrorKind.TIMEOUT), side);
                // 5 opaque<> of 100 bytes (length word + data) each way; nothing else carries XDR bytes.
                assertEquals(5 * 104, m.bytesIn(), side);
                assertEquals(5 * 104, m.bytesOut(), side);
            }

            MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
            server.registerMBean();
            client.registerMBean();
            ObjectName serverName = new ObjectName("dev.rpcrdma:type=RpcServer,name=metrics-test-server");
            ObjectName clientName = new ObjectName("dev.rpcrdma:type=RpcClient,name=metrics-test-client");
            for (ObjectName n : new ObjectName[] {serverName, clientName}) {
                assertEquals(9L, mbeans.getAttribute(n, "Calls"), n.toString());
                assertEquals(3L, mbeans.getAttribute(n, "Errors"));
                assertEquals(1L, mbeans.getAttribute(n, "Errors.SYSTEM_ERR"));
                assertEquals(5L, mbeans.getAttribute(n, "metered.ECHO.Calls"));
                assertEquals(520L, mbeans.getAttribute(n, "BytesIn"));
                assertTrue((Long) mbeans.getAttribute(n, "metered.ECHO.LatencyP99Nanos") > 0);
                assertTrue(mbeans.getMBeanInfo(n).getAttributes().length > 20);
            }
            client.attach("Extra", () -> 42);
            assertEquals(42L, mbeans.getAttribute(clientName, "Extra"));
            rpc.channel().close().sync();
            listener.close().sync();
            server.close();
            assertFalse(mbeans.isRegistered(serverName), "close() unregisters the MBean");
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
