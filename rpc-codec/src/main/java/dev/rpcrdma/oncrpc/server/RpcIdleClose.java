package dev.rpcrdma.oncrpc.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * The idle timeout of a connection whose transport handler counts its own use ({@link RpcConnectionUse}): closes the
 * connection (logged, counted) once it has been idle for the idle time with no call in progress, as
 * {@link RpcIdleTimeout} and {@link RpcCallLimiter} do together, but with no pipeline hop per message. Event loop only.
 */
final class RpcIdleClose extends IdleTimer {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcCallLimiter.class);

    private final RpcServerGuard guard;
    private final RpcConnectionUse use;

    RpcIdleClose(long idleNanos, RpcServerGuard guard, RpcConnectionUse use) {
        super(idleNanos);
        this.guard = guard;
        this.use = use;
    }

    @Override
    int uses() {
        return use.uses();
    }

    @Override
    void idle(ChannelHandlerContext ctx, IdleStateEvent event) {
        if (use.callsInProgress() == 0 && ctx.channel().isOpen()) {
            guard.recordIdleClose();
            logger.info("{} closing an idle connection (RpcServerLimits.idleTimeout {})", ctx.channel(),
                    guard.limits().idleTimeout());
            ctx.close();
        }
    }
}
