package dev.rpcrdma.oncrpc.server;

/**
 * A connection's use as a transport handler that counts it itself reports it to {@link RpcServerGuard}'s idle
 * timeout ({@link RpcServerGuard#install(io.netty.channel.ChannelPipeline, RpcConnectionUse)}), so that neither the
 * idle timeout nor a call limiter needs a pipeline hop per message. Read on the connection's event loop only.
 */
public interface RpcConnectionUse {

    /** A count that moves whenever the connection receives or sends a message (it may wrap). */
    int uses();

    /** Calls received and not answered yet: an idle connection with one in progress stays open. */
    int callsInProgress();
}
