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
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;

/**
 * The NFS server's RPC-over-RDMA (RFC 8166) listener, set up as the echo sample's RdmaTransport does: the same
 * {@link RpcDispatcher} behind rpcrdma-handlers' {@link RpcRdmaServerInitializer} on netty-rdma-channel, over the
 * native fabric (a real or Soft-RoCE device) or the in-process software fabric. Backward calls (the NFSv4.1
 * callback channel) need the initializer's backchannel; until the RDMA transport offers one, CREATE_SESSION over
 * RDMA answers without CONN_BACK_CHAN and no delegations are granted there. Built once by {@link Nfs4Server}.
 */
final class RdmaListener {
    private RdmaListener() {
    }

    /**
     * Whether RDMA connections get a backchannel (NFSv4.1 callbacks, delegations). Switching it on is one call:
     * {@code new RpcRdmaServerInitializer(...).withBackchannel()} in {@link #bootstrap}, once rpcrdma-handlers
     * offers it; then set this to true (LinuxKernelClientTest's RDMA recall test runs only then).
     */
    static final boolean BACKCHANNEL = false;

    static Fabric fabric(String selector) {
        return switch (selector) {
            case "software" -> SoftwareFabric.instance();
            case "native" -> {
                if (!Rdma.isAvailable()) {
                    throw new IllegalArgumentException("RDMA is not available here: " + Rdma.unavailabilityCause());
                }
                yield Fabrics.findNative();
            }
            default -> Rdma.isAvailable() && Fabrics.findNative() != null ? Fabrics.findNative()
                    : SoftwareFabric.instance();
        };
    }

    static EventLoopGroup newGroup(int threads, Fabric fabric) {
        return new MultiThreadIoEventLoopGroup(threads, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(fabric)));
    }

    static ServerBootstrap bootstrap(EventLoopGroup group, RpcDispatcher dispatcher, RpcRdmaStats stats) {
        RpcRdmaConfig config = RpcRdmaConfig.DEFAULT.withLimits(RpcRdmaLimits.DEFAULT,
                SessionOps.MAX_MESSAGE + 4096);
        // With the RDMA backchannel: new RpcRdmaServerInitializer(dispatcher, config, stats).withBackchannel()
        RpcRdmaServerInitializer init = new RpcRdmaServerInitializer(dispatcher, config, stats);
        return init.configure(new ServerBootstrap().group(group).channel(RdmaServerChannel.class).childHandler(init));
    }
}
