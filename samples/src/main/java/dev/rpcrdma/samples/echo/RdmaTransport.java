package dev.rpcrdma.samples.echo;

import dev.rpcrdma.channel.Rdma;
import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RpcRdmaLimits;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.handlers.requester.RpcRdmaRequester;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * ONC RPC over RPC-over-RDMA Version 1 (RFC 8166) with rpcrdma-handlers' drop-in initializers on
 * netty-rdma-channel, over the native fabric (libibverbs and librdmacm on a real or Soft-RoCE device) or the
 * in-process software fabric.
 */
final class RdmaTransport implements EchoTransport {

    /** Largest RPC message reassembled from chunks: the largest echo plus room for the RPC headers. */
    static final int MAX_MESSAGE = EchoProgram.MAX_DATA + 4096;

    private final RdmaFabric fabric;
    private final String fabricNote;
    private final String note;
    /** Why {@code --fabric auto} chose the software fabric; null when it did not. */
    private final String softwareReason;
    private final RpcRdmaConfig serverConfig;
    private final RpcRdmaConfig clientConfig;
    private final RpcRdmaStats serverStats = new RpcRdmaStats();
    private final RpcRdmaStats clientStats = new RpcRdmaStats();
    /** {@code --busy-poll}: how long an idle loop polls before it sleeps, in nanoseconds (0: never spins). */
    private final long busyPollNanos;

    RdmaTransport(EchoOptions options) {
        busyPollNanos = options.busyPollMicros * 1000L;
        boolean loopback = options.addresses.stream().anyMatch(RdmaTransport::isLoopback);
        boolean nativeUsable = "auto".equals(options.fabric) && Rdma.isAvailable()
                && RdmaFabric.NATIVE.isAvailable();
        if ("auto".equals(options.fabric)) {
            // A loopback address is on no RoCE device (Soft-RoCE sits on a netdev such as dummy0, not on lo):
            // the only fabric that answers there is the in-process one.
            fabric = nativeUsable && !loopback ? RdmaFabric.NATIVE : RdmaFabric.SOFTWARE;
        } else {
            fabric = selectFabric(options.fabric);
        }
        fabricNote = fabric == RdmaFabric.SOFTWARE ? "software fabric, in-process" : "native fabric";
        if (fabric == RdmaFabric.SOFTWARE && "auto".equals(options.fabric)) {
            softwareReason = nativeUsable
                    ? "an RDMA device is available but " + String.join(",", options.addresses) + " is a loopback"
                    + " address, which is on no RDMA device"
                    : EchoCommand.noDeviceReason();
            note = softwareReason + ": using the in-process software fabric" + (nativeUsable ? " (give --address"
                    + " the IP of the device's interface to use the device)" : " (--fabric native insists on a"
                    + " device)");
        } else {
            softwareReason = null;
            note = null;
        }
        RpcRdmaConfig base = RpcRdmaConfig.DEFAULT.withInlineSizes(options.inline, options.inline)
                .withRemoteInvalidation(options.remoteInvalidation)
                .withLimits(RpcRdmaLimits.DEFAULT, MAX_MESSAGE);
        serverConfig = base.withGrantBounds(1, options.credits);
        clientConfig = base.withMaxRequests(options.credits);
    }

    /** What {@code run-echo} offers instead of a native fabric that is not available. */
    static final String NATIVE_ALTERNATIVES = "use --transport tcp, or --fabric software within one JVM";

    private static RdmaFabric selectFabric(String selector) {
        if ("software".equals(selector)) {
            return RdmaFabric.SOFTWARE;
        }
        if (!Rdma.isAvailable()) {
            throw new UserError(EchoCommand.nativeRefusal(NATIVE_ALTERNATIVES));
        }
        try {
            return RdmaFabric.select("native");
        } catch (IllegalStateException e) {
            throw new UserError("an RDMA device is usable but no native fabric is on the class path"
                    + " (netty-rdma-channel jar missing?): use --fabric software or --transport tcp", e);
        }
    }

    static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host.trim()).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** Whether a native device is in use and {@code address} is loopback: no RoCE device answers there. */
    boolean unreachableOverRdma(InetAddress address) {
        return !inProcess() && address != null && address.isLoopbackAddress();
    }

    @Override
    public String listenNote(InetSocketAddress address) {
        return unreachableOverRdma(address.getAddress()) ? address.getAddress().getHostAddress() + " is a loopback"
                + " address: RoCE/Soft-RoCE clients cannot reach it over RDMA; listen on the address of the RDMA"
                + " device's interface, or 0.0.0.0" : null;
    }

    /** Why {@code --fabric auto} fell back to the software fabric, or null when it did not (or was not asked). */
    String softwareReason() {
        return softwareReason;
    }

    @Override
    public String advertised() {
        return "inline send/receive " + serverConfig.sendSize() + "/" + serverConfig.receiveSize()
                + " B (RFC 8797), up to " + serverConfig.maxGrant() + " credits, remote invalidation "
                + (serverConfig.remoteInvalidation() ? "on" : "off");
    }

    @Override
    public long serverErrors() {
        return serverStats.errorsSent();
    }

    /** Whether the software fabric is in use: connections reach only servers in this JVM. */
    boolean inProcess() {
        return fabric == RdmaFabric.SOFTWARE;
    }

    /** RPC-over-RDMA counters of the server connections made with this transport. */
    RpcRdmaStats serverStats() {
        return serverStats;
    }

    /** RPC-over-RDMA counters of the client connections made with this transport. */
    RpcRdmaStats clientStats() {
        return clientStats;
    }

    @Override
    public String description() {
        return "rdma (" + fabricNote + ")";
    }

    @Override
    public String note() {
        return note;
    }

    @Override
    public EventLoopGroup newGroup(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(fabric).busyPollNanos(busyPollNanos)));
    }

    @Override
    public ServerBootstrap serverBootstrap(EventLoopGroup group, RpcDispatcher dispatcher) {
        RpcRdmaServerInitializer init = new RpcRdmaServerInitializer(dispatcher, serverConfig, serverStats);
        // Receive buffers and send slots sized to what the server advertises (RFC 8797 §3.1).
        return init.configure(new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                .childHandler(init));
    }

    @Override
    public Bootstrap clientBootstrap(EventLoopGroup group, RpcStats rpcStats, Duration callTimeout) {
        return new Bootstrap().group(group).channel(RdmaChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                        callTimeout.toMillis()))
                .handler(new RpcRdmaClientInitializer(rpcStats, clientConfig, clientStats, callTimeout));
    }

    @Override
    public String negotiated(Channel client) {
        RpcRdmaRequester requester = client.pipeline().get(RpcRdmaRequester.class);
        if (requester == null) {
            return "(no RPC-over-RDMA requester on " + client + ")";
        }
        try {
            // The requester's state belongs to the event loop.
            return client.eventLoop().submit(() -> {
                InlineThresholds t = requester.thresholds();
                if (t == null) {
                    return "(not negotiated yet)";
                }
                return "RPC-over-RDMA v1, inline send " + t.sendThreshold() + " B / receive " + t.receiveThreshold()
                        + " B (advertised " + clientConfig.sendSize() + "/" + clientConfig.receiveSize()
                        + "), credits granted " + requester.creditGrant() + " (requested "
                        + clientConfig.maxRequests() + "), remote invalidation "
                        + (t.remoteInvalidation() ? "on" : "off" + (!clientConfig.remoteInvalidation()
                        ? " (not requested)" : client instanceof RdmaChannel
                        && !((RdmaChannel) client).remoteInvalidationSupported()
                        ? " (this device does not report it in receive completions: not requested)"
                        : " (the server did not offer it)"));
            }).get(5, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return "(unknown: " + Diagnosis.firstLine(e) + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(interrupted)";
        }
    }

    @Override
    public String counters() {
        RpcRdmaStats stats = clientStats;
        return "client side: " + stats.readChunks() + " read chunks, " + stats.writeChunksUsed()
                + " write chunks, " + stats.longCalls() + " long calls, " + stats.longReplies() + " long replies"
                + " (chunks carry what does not fit the inline threshold); memory invalidated "
                + stats.remoteInvalidations() + " times by the server's Send With Invalidate (calls that exposed one"
                + " chunk) and " + stats.localInvalidations() + " times by the client (calls that exposed several);"
                + " " + stats.errorsSent() + " RDMA_ERROR sent, " + stats.errorsReceived() + " received";
    }
}
