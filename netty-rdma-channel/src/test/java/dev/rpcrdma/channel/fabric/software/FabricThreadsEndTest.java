package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * After {@code shutdownGracefully().sync()} of the last RDMA event loop group, no thread of ours is left: not the
 * loops, not the software fabric's engine, not the queue-pair teardown pool ({@code mvn exec:java} waited 15 s for
 * them and warned). And a later group works again (new threads on demand).
 */
class FabricThreadsEndTest {

    @Test
    void noThreadSurvivesTheLastLoop() throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        SoftwareFabric fabric = SoftwareFabric.newIsolated();
        for (int round = 0; round < 2; round++) {   // the second round needs the threads back
            EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, new DefaultThreadFactory("threads-end-test"),
                    RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(fabric)));
            try {
                Channel server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                        .childHandler(new Idle())
                        .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
                List<Channel> clients = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    clients.add(new Bootstrap().group(group).channel(RdmaChannel.class)
                            .handler(new Idle())
                            .connect(server.localAddress()).sync().channel());
                }
                
                for (Channel c : clients) {
                    c.close().sync();   // queue pairs are destroyed on the teardown threads
                }
                server.close().sync();
            } finally {
                group.shutdownGracefully(0, 5, java.util.concurrent.TimeUnit.SECONDS).sync();
            }
            
            List<Thread> ours = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> !before.contains(t) && ours(t.getName())).collect(Collectors.toList());
            for (Thread t : ours) {
                t.join(2000);   // a loop's termination future completes just before its thread returns
            }
            List<String> left = ours.stream().filter(Thread::isAlive).map(Thread::getName).sorted()
                    .collect(Collectors.toList());
            assertEquals(List.of(), left, "round " + round + ": threads that survived the last loop");
        }
    }

    @ChannelHandler.Sharable
    private static final class Idle extends ChannelInboundHandlerAdapter {
    }

    private static boolean ours(String name) {
        return name.startsWith("threads-end-test") || name.startsWith("rdma-");
    }
}
