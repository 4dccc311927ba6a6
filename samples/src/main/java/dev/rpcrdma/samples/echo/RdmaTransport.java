package dev.rpcrdma.samples.echo;

import dev.rpcrdma.channel.Rdma;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.Fabrics;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;

import java.time.Duration;

/**
 * ONC RPC over RPC-over-RDMA Version 1 (RFC 8166) on netty-rdma-channel, over the native fabric (libibverbs and
 * librdmacm on a real or Soft-RoCE device) or the in-process software fabric.
 */
final class RdmaTransport implements EchoTransport {

    private final Fabric fabric;
    private final String fabricNote;

    RdmaTransport(EchoOptions options) {
        switch (options.fabric) {
            case "software":
                fabric = SoftwareFabric.instance();
                fabricNote = "software fabric: in-process, reachable from this JVM only";
                break;
            case "native":
                if (!Rdma.isAvailable()) {
                    throw new UserError("RDMA is not available here: " + Diagnosis.firstLine(Rdma.unavailabilityCause())
                            + " (or use --fabric software within one JVM, or --transport tcp)");
                }
                fabric = nativeFabric();
                fabricNote = "native fabric";
                break;
            default:
                Fabric found = Rdma.isAvailable() ? Fabrics.findNative() : null;
                if (found != null) {
                    fabric = found;
                    fabricNote = "native fabric";
                } else {
                    fabric = SoftwareFabric.instance();
                    fabricNote = "software fabric, in-process (no usable RDMA device: "
                            + Diagnosis.firstLine(Rdma.unavailabilityCause()) + ")";
                }
        }
        throw new UserError("RPC-over-RDMA is not in this build yet (rpcrdma-handlers has no"
                + " RpcRdmaServerInitializer/RpcRdmaClientInitializer): use --transport tcp");
    }

    private static Fabric nativeFabric() {
        try {
            return Fabrics.select("native");
        } catch (IllegalStateException e) {
            throw new UserError("RDMA devices are usable but no native fabric is installed (netty-rdma-channel"
                    + " jar missing from the class path?): use --fabric software or --transport tcp", e);
        }
    }

    /** Whether the software fabric is in use: connections reach only servers in this JVM. */
    boolean inProcess() {
        return fabric instanceof SoftwareFabric;
    }

    @Override
    public String description() {
        return "rdma (" + fabricNote + ")";
    }

    @Override
    public EventLoopGroup newGroup(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(fabric)));
    }

    @Override
    public ServerBootstrap serverBootstrap(EventLoopGroup group, RpcDispatcher dispatcher) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public Bootstrap clientBootstrap(EventLoopGroup group, RpcStats stats, Duration callTimeout) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public String negotiated(Channel client) {
        return "";
    }
}
