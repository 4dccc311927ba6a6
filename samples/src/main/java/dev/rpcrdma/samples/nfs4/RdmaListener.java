package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.channel.Rdma;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.Fabrics;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RpcRdmaLimits;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.samples.echo.EchoCommand;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;

/**
 * The NFS server's RPC-over-RDMA (RFC 8166) listener, set up as the echo sample's RdmaTransport does: the same
 * {@link RpcDispatcher} behind rpcrdma-handlers' {@link RpcRdmaServerInitializer} on netty-rdma-channel, over the
 * native fabric (a real or Soft-RoCE device) or the in-process software fabric, with the initializer's
 * backchannel (RFC 8167) so the NFSv4.1 callbacks (CB_RECALL) reach RDMA clients on their own connection. Built
 * once by {@link Nfs4Server}.
 */
final class RdmaListener {
    private RdmaListener() {
    }

    /**
     * Whether RDMA connections get a backchannel (NFSv4.1 callbacks, delegations): the one call
     * {@code RpcRdmaServerInitializer.withBackchannel()} in {@link #bootstrap} (LinuxKernelClientTest's RDMA
     * recall test runs only with it).
     */
    static final boolean BACKCHANNEL = true;

    /** What {@code run-nfs-server} offers instead of a native fabric that is not available. */
    static final String NATIVE_ALTERNATIVES = "use --transport tcp";

    static Fabric fabric(String selector) {
        return switch (selector) {
            case "software" -> SoftwareFabric.instance();
            case "native" -> {
                if (!Rdma.isAvailable() || Fabrics.findNative() == null) {
                    throw new IllegalArgumentException(EchoCommand.nativeRefusal(NATIVE_ALTERNATIVES));
                }
                yield Fabrics.findNative();
            }
            // auto: the software fabric only when named (a server there is reachable from this JVM only).
            default -> {
                if (!Rdma.isAvailable() || Fabrics.findNative() == null) {
                    throw new IllegalArgumentException(EchoCommand.softwareFabricRefusal(EchoCommand.noDeviceReason()));
                }
                yield Fabrics.findNative();
            }
        };
    }

    static EventLoopGroup newGroup(int threads, Fabric fabric) {
        return new MultiThreadIoEventLoopGroup(threads, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(fabric)));
    }

    static ServerBootstrap bootstrap(EventLoopGroup group, RpcDispatcher dispatcher, RpcRdmaStats stats,
                                     int inline, boolean remoteInvalidation) {
        RpcRdmaConfig config = RpcRdmaConfig.DEFAULT.withInlineSizes(inline, inline)
                .withRemoteInvalidation(remoteInvalidation)
                .withLimits(RpcRdmaLimits.DEFAULT, SessionOps.MAX_MESSAGE + 4096);
        RpcRdmaServerInitializer init = new RpcRdmaServerInitializer(dispatcher, config, stats);
        if (BACKCHANNEL) {
            init = init.withBackchannel();
        }
        return init.configure(new ServerBootstrap().group(group).channel(RdmaServerChannel.class).childHandler(init));
    }
}
