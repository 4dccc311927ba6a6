package dev.rpcrdma.samples.oncrpc4j;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.rpcbind.PortMapping;
import dev.rpcrdma.oncrpc.rpcbind.RpcbindClient;
import dev.rpcrdma.oncrpc4j.OncRpcBridge;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.dcache.oncrpc4j.portmap.OncRpcbindServer;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import picocli.CommandLine;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * dCache oncrpc4j's own rpcbind service ({@code OncRpcbindServer}, unchanged) served over RPC-over-RDMA by the
 * oncrpc4j bridge, and asked by this project's rpcbind client: SET, GETPORT, DUMP. {@code --serve} keeps it
 * listening until interrupted.
 * <pre>
 *   samples/run-oncrpc4j-rpcbind [--fabric software|native] [--address A] [--port P] [--serve]
 * </pre>
 */
@CommandLine.Command(name = "run-oncrpc4j-rpcbind", mixinStandardHelpOptions = true, version = "0.1.0",
        description = "oncrpc4j's rpcbind service over RPC-over-RDMA through the oncrpc4j bridge, then asked by an"
                + " RPC-over-RDMA rpcbind client (SET, GETPORT, DUMP).")
public final class Oncrpc4jRpcbindDemo implements Callable<Integer> {

    @CommandLine.Option(names = "--fabric", paramLabel = "software|native", defaultValue = "software",
            description = "RDMA fabric: software (in this JVM only) or native (an RDMA device; needs --address of its"
                    + " interface). Default: ${DEFAULT-VALUE}.")
    String fabric;

    @CommandLine.Option(names = "--address", defaultValue = "127.0.0.1",
            description = "Address to listen on. Default: ${DEFAULT-VALUE}.")
    String address;

    @CommandLine.Option(names = "--port", defaultValue = "0", description = "Port (0: any). Default: ${DEFAULT-VALUE}.")
    int port;

    @CommandLine.Option(names = "--serve", description = "Keep serving after the demo until interrupted (Ctrl-C).")
    boolean serve;

    public static void main(String[] args) {
        System.exit(new CommandLine(new Oncrpc4jRpcbindDemo()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        RdmaFabric rdmaFabric = RdmaFabric.select(fabric);
        ExecutorService executor = Executors.newFixedThreadPool(2);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2,
                RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(rdmaFabric)));
        try {
            OncRpcBridge bridge = OncRpcBridge.of(Map.of(new OncRpcProgram(100000, 2), new OncRpcbindServer()),
                    executor);
            Channel server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                    .childHandler(bridge.rdma()).bind(new InetSocketAddress(address, port)).sync().channel();
            System.out.println("oncrpc4j OncRpcbindServer over RPC-over-RDMA (" + fabric + " fabric) at "
                    + server.localAddress());
            Channel c = new Bootstrap().group(group).channel(RdmaChannel.class)
                    .handler(new RpcRdmaClientInitializer()).connect(server.localAddress()).sync().channel();
            RpcbindClient rpcbind = new RpcbindClient(RpcClient.of(c));
            PortMapping mapping = new PortMapping(0x20000099, 1, PortMapping.IPPROTO_TCP, 20099);
            System.out.println("SET     " + mapping + ": " + rpcbind.pmapSet(mapping).get(30, TimeUnit.SECONDS));
            System.out.println("GETPORT 0x20000099 v1 tcp: "
                    + rpcbind.pmapGetPort(0x20000099, 1, PortMapping.IPPROTO_TCP).get(30, TimeUnit.SECONDS));
            System.out.println("DUMP:");
            for (PortMapping m : rpcbind.pmapDump().get(30, TimeUnit.SECONDS)) {
                System.out.println("  " + m);
            }
            c.close().sync();
            if (serve) {
                System.out.println("serving until interrupted (Ctrl-C)");
                server.closeFuture().sync();
            }
            server.close().sync();
            return 0;
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            executor.shutdown();
        }
    }
}
