package dev.rpcrdma.interop.hadoop;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.testing.FabricSuite;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaFraming;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.rpcbind.PortMapping;
import dev.rpcrdma.oncrpc.rpcbind.RpcbindClient;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.apache.hadoop.oncrpc.RpcUtil;
import org.apache.hadoop.portmap.PortmapMapping;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Apache Hadoop's portmap ({@code RpcProgramPortmap} of hadoop-nfs 3.4.1), unchanged, served over RPC-over-RDMA:
 * the pipeline {@code Portmap.start} builds for TCP with only its frame decoder swapped for the byte framing
 * ({@link RpcRdmaFraming#responder}); Hadoop's parser, program and TCP response stage (which adds record marks)
 * stay. This project's rpcbind client (a client Hadoop did not write either) sends SET, GETPORT and DUMP.
 * Hadoop's portmap never releases the messages it reads, so the framing hands it heap copies. Its program is
 * package-private in Hadoop: the suite makes it and reads its table by reflection.
 */
abstract class HadoopPortmapOverRdmaSuite extends FabricSuite {
    static final long TIMEOUT = 120;

    EventLoopGroup group;
    ChannelGroup allChannels;
    Channel server;
    ChannelHandler handler;

    HadoopPortmapOverRdmaSuite(TestFabric testFabric) {
        super(testFabric);
    }

    @BeforeEach
    void start() throws Exception {
        group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(fabric())));
        allChannels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
        handler = newRpcProgramPortmap(allChannels);
        RpcRdmaFraming framing = RpcRdmaFraming.of(RpcRdmaConfig.DEFAULT).withRecordMarks(true)
                .withCopiedInbound(true);
        int idleMillis = 5000; // Portmap.DEFAULT_IDLE_TIME_MILLISECONDS (private); the handler itself closes after 1 s idle
        server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                // Portmap.start's TCP pipeline with RpcUtil.constructRpcFrameDecoder() replaced by the framing.
                .childHandler(framing.server(p -> p.addLast(RpcUtil.STAGE_RPC_MESSAGE_PARSER,
                        new IdleStateHandler(0, 0, idleMillis, TimeUnit.MILLISECONDS), handler,
                        RpcUtil.STAGE_RPC_TCP_RESPONSE)))
                .bind(new InetSocketAddress(address(), 0)).sync().channel();
        allChannels.add(server);
    }

    @AfterEach
    void stop() throws Exception {
        allChannels.close().awaitUninterruptibly(TIMEOUT, TimeUnit.SECONDS);
        assertTrue(group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(TIMEOUT, TimeUnit.SECONDS));
    }

    @Test
    void hadoopsPortmapAnswersSetGetportAndDumpOverRdma() throws Exception {
        // Hadoop's handler closes a connection idle for one second, also before its first call: where the first
        // call comes later than that (a cold JVM under emulation), the test connects again, as a client would.
        for (int attempt = 1; ; attempt++) {
            Channel c = new Bootstrap().group(group).channel(RdmaChannel.class)
                    .handler(new RpcRdmaClientInitializer()).connect(server.localAddress()).sync().channel();
            try {
                exercise(c);
                return;
            } catch (ExecutionException e) {
                boolean idleClosed = c.closeFuture().await(TIMEOUT, TimeUnit.SECONDS);
                if (!idleClosed || attempt == 5) {
                    throw e;
                }
                System.err.println("Hadoop's portmap closed the idle connection before the calls ended ("
                        + e.getCause() + "): connecting again");
            } finally {
                c.close().sync();
            }
        }
    }

    private void exercise(Channel c) throws Exception {
        CallOptions quick = CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(10));
        RpcClient client = RpcClient.of(c);
        // Hadoop answers SET with the port (an int), not RFC 1833's bool: read it as Hadoop writes it.
        XdrPayload mapping = client.newPayload();
        mapping.writer().writeInt(0x20000777).writeInt(3).writeInt(PortMapping.IPPROTO_TCP).writeInt(2345);
        assertEquals(2345, client.call(RpcbindClient.PROGRAM, RpcbindClient.PMAP_VERSION, RpcbindClient.PROC_SET,
                mapping, r -> r.readInt(), quick).get(TIMEOUT, TimeUnit.SECONDS));
        RpcbindClient rpcbind = new RpcbindClient(client);
        assertEquals(2345, rpcbind.pmapGetPort(0x20000777, 3, PortMapping.IPPROTO_TCP).get(TIMEOUT, TimeUnit.SECONDS));
        assertEquals(0, rpcbind.pmapGetPort(0x20000778, 3, PortMapping.IPPROTO_TCP).get(TIMEOUT, TimeUnit.SECONDS));
        List<PortMapping> dump = rpcbind.pmapDump().get(TIMEOUT, TimeUnit.SECONDS);
        assertTrue(dump.stream().anyMatch(m -> m.program() == 0x20000777 && m.port() == 2345), dump.toString());
        assertTrue(dump.stream().anyMatch(m -> m.program() == 100000 && m.port() == 111), dump.toString());
        assertTrue(portmapTable(handler).containsKey(PortmapMapping.key(new PortmapMapping(0x20000777, 3,
                PortmapMapping.TRANSPORT_TCP, 2345))), "Hadoop's own table holds the mapping");
    }

    private static ChannelHandler newRpcProgramPortmap(ChannelGroup allChannels) throws ReflectiveOperationException {
        Constructor<?> c = Class.forName("org.apache.hadoop.portmap.RpcProgramPortmap")
                .getDeclaredConstructor(ChannelGroup.class);
        c.setAccessible(true);
        return (ChannelHandler) c.newInstance(allChannels);
    }

    private static Map<?, ?> portmapTable(ChannelHandler handler) throws ReflectiveOperationException {
        Method getMap = handler.getClass().getDeclaredMethod("getMap");
        getMap.setAccessible(true);
        return (Map<?, ?>) getMap.invoke(handler);
    }

    /**
     * Hadoop's portmap closes a connection idle for a second (its IdleStateHandler, set up in handlerAdded on an
     * active channel as over TCP); the client sees its connection end.
     */
    @Test
    void hadoopsIdleCloseEndsTheRdmaConnection() throws Exception {
        Channel c = new Bootstrap().group(group).channel(RdmaChannel.class).handler(new RpcRdmaClientInitializer())
                .connect(server.localAddress()).sync().channel();
        RpcbindClient rpcbind = new RpcbindClient(RpcClient.of(c));
        rpcbind.pmapGetPort(100000, 2, PortMapping.IPPROTO_TCP).get(TIMEOUT, TimeUnit.SECONDS);
        assertTrue(c.closeFuture().await(TIMEOUT, TimeUnit.SECONDS), "the server's idle close reached the client");
    }
}
