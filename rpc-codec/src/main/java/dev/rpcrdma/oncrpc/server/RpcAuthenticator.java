package dev.rpcrdma.oncrpc.server;

import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import io.netty.channel.Channel;

/**
 * A security flavor the {@link RpcDispatcher} hands every call of {@link #flavor()} to before any procedure runs
 * ({@link RpcDispatcher#withAuthenticator}); RPCSEC_GSS is {@code dev.rpcrdma.oncrpc.gss.RpcGssAuthenticator}.
 * Runs on the connection's event loop: it must not block (no network I/O), and never throws for bad input.
 */
public interface RpcAuthenticator {

    /** The flavor handled. */
    AuthFlavor flavor();

    /**
     * Decides {@code call}, received on {@code channel} with {@code message} (its arguments in
     * {@code message.body()}, not consumed unless the verdict carries unwrapped arguments).
     */
    RpcAuthVerdict authenticate(Channel channel, RpcCall call, InboundRpcMessage message);
}
