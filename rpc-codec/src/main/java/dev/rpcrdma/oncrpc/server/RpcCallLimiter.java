package dev.rpcrdma.oncrpc.server;

import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcReply;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.ArrayDeque;

/**
 * One server connection's share of {@link RpcServerLimits}, just before the dispatcher: counts the calls passed up
 * and not answered yet (an {@link OutboundRpcMessage} with a {@link RpcReply} header going down answers one). At
 * the maximum it turns auto-read off and keeps the calls a read already decoded in order, passing each up as a reply
 * goes out (RFC 5531 §8: a server may process calls in any order, so holding them back is allowed); below it again,
 * reading resumes. While backward calls (an {@link OutboundRpcMessage} with a {@link RpcCall} header) wait for their
 * replies, reading goes on whatever the count, the calls read meanwhile waiting here: their replies come on the same
 * stream, and a procedure waiting for one would otherwise never answer (fail-open: a backward call that times out
 * without a reply leaves that connection reading). An {@link IdleStateEvent} closes the connection when no call is in progress (logged, counted).
 * Replies to backward calls and other messages pass unchanged. Event-loop confined.
 */
public final class RpcCallLimiter extends ChannelDuplexHandler {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcCallLimiter.class);

    private final RpcServerGuard guard;
    private final int maxCallsInFlight;
    private final ArrayDeque<InboundRpcMessage> waiting = new ArrayDeque<>();
    private int inFlight;
    private int backwardOutstanding;
    private boolean paused;
    /** {@link #release} as a task, one per connection rather than one lambda per reply. */
    private final Runnable releaseTask = this::releaseLater;
    private ChannelHandlerContext releaseContext;

    RpcCallLimiter(RpcServerGuard guard, int maxCallsInFlight) {
        this.guard = guard;
        this.maxCallsInFlight = maxCallsInFlight;
    }

    /** Calls passed up and not answered. */
    public int callsInFlight() {
        return inFlight;
    }

    /** Calls held back at the maximum. */
    public int callsWaiting() {
        return waiting.size();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof InboundRpcMessage)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (!(((InboundRpcMessage) msg).header() instanceof RpcCall)) {
            // The reply to a backward call (or a stray reply the dispatcher drops).
            if (backwardOutstanding > 0) {
                backwardOutstanding--;
            }
            ctx.fireChannelRead(msg);
            updateReading(ctx);
            return;
        }
        if (inFlight >= maxCallsInFlight || !waiting.isEmpty()) {
            waiting.add((InboundRpcMessage) msg);
        } else {
            inFlight++;
            ctx.fireChannelRead(msg);
        }
        updateReading(ctx);
    }

    /** Reading pauses at the maximum, unless backward calls wait for their replies on this stream. */
    private void updateReading(ChannelHandlerContext ctx) {
        boolean pause = (inFlight >= maxCallsInFlight || !waiting.isEmpty()) && backwardOutstanding == 0;
        if (pause == paused || (!pause && !ctx.channel().isActive())) {
            return;
        }
        paused = pause;
        if (pause) {
            guard.recordReadPause();
        }
        ctx.channel().config().setAutoRead(!pause);
        logger.debug("{} {} calls in flight, {} waiting: reading {}", ctx.channel(), inFlight, waiting.size(),
                pause ? "paused" : "resumed");
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        // Read before the write: the transport may release the message (and recycle its header) inside it.
        Object header = msg instanceof OutboundRpcMessage ? ((OutboundRpcMessage) msg).header() : null;
        boolean reply = header instanceof RpcReply;
        boolean call = header instanceof RpcCall;
        ctx.write(msg, promise);
        if (reply && inFlight > 0) {
            inFlight--;
            if (!waiting.isEmpty() || paused) {
                // Later, after this write (calls passed up now would answer inside it); nothing to do otherwise.
                releaseContext = ctx;
                ctx.executor().execute(releaseTask);
            }
        } else if (call) {
            backwardOutstanding++;
            updateReading(ctx);
        }
    }

    private void releaseLater() {
        release(releaseContext);
    }

    /** After a reply: passes waiting calls up, then updates reading. */
    private void release(ChannelHandlerContext ctx) {
        while (inFlight < maxCallsInFlight && !waiting.isEmpty()) {
            inFlight++;
            ctx.fireChannelRead(waiting.poll());
        }
        updateReading(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            if (inFlight == 0 && waiting.isEmpty() && ctx.channel().isOpen()) {
                guard.recordIdleClose();
                logger.info("{} closing an idle connection (RpcServerLimits.idleTimeout {})", ctx.channel(),
                        guard.limits().idleTimeout());
                ctx.close();
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        for (InboundRpcMessage m; (m = waiting.poll()) != null; ) {
            ReferenceCountUtil.release(m);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        handlerRemoved(ctx);
        ctx.fireChannelInactive();
    }
}
