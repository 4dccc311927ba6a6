package dev.rpcrdma.oncrpc.server;

import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.message.AuthStat;
import dev.rpcrdma.oncrpc.message.AuthSysCredential;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.metrics.RpcErrorKind;
import dev.rpcrdma.oncrpc.metrics.RpcMetrics;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * Server side of RFC 5531: receives decoded {@link InboundRpcMessage}s (from the TCP codec or an RPC-over-RDMA
 * handler), finds the procedure in the {@link RpcProgramRegistry} and runs it; writes
 * {@link OutboundRpcMessage} replies. Answers on its own, per RFC 5531 §9:
 * <ul>
 *   <li>rpcvers != 2: MSG_DENIED RPC_MISMATCH(2, 2);</li>
 *   <li>a flavor with an {@link RpcAuthenticator} ({@link #withAuthenticator}, e.g. RPCSEC_GSS): whatever it
 *       decides (its own answers, AUTH_ERROR, a silent drop, or the call with its arguments unwrapped);</li>
 *   <li>a credential/verifier the decoder flagged (body over 400 bytes) or an AUTH_SYS credential that does not
 *       decode: MSG_DENIED AUTH_ERROR (AUTH_BADCRED / AUTH_BADVERF);</li>
 *   <li>unknown program: PROG_UNAVAIL; known program, unknown version: PROG_MISMATCH(lowest, highest
 *       registered); unknown procedure: PROC_UNAVAIL;</li>
 *   <li>procedure threw {@link XdrException} (its arguments did not decode): GARBAGE_ARGS; threw anything else:
 *       SYSTEM_ERR.</li>
 * </ul>
 * A REPLY arriving at a server is the reply to a backward call when the connection has a {@link RpcBackchannel} in
 * the {@link RpcBackchannel.Role#CALLER} role (it goes on to the RpcClientHandler behind the dispatcher); otherwise it
 * is logged, counted ({@link RpcStats#unexpectedMessages()}) and dropped. On a client connection that serves
 * callbacks, the dispatcher sits behind the RpcClientHandler and receives the backward calls it passes on.
 * With an {@link RpcMetrics}, every call is recorded there (per procedure, errors by kind, bytes, latency from
 * dispatch to the reply's write). Sharable: one instance serves every connection.
 */
@ChannelHandler.Sharable
public final class RpcDispatcher extends SimpleChannelInboundHandler<InboundRpcMessage> {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcDispatcher.class);
    /** Arguments that did not decode: a warning naming the procedure, the limit and the size, rate-limited. */
    private static final GarbageArgsLog GARBAGE_ARGS_LOG = new GarbageArgsLog(logger, 5_000_000_000L);

    /** A reply that cannot be written (typically: the connection closed meanwhile) is logged and dropped. */
    static final ChannelFutureListener LOG_WRITE_FAILURE = f -> {
        if (!f.isSuccess()) {
            logger.debug("{} reply not sent: {}", f.channel(), f.cause().toString());
        }
    };

    private final RpcProgramRegistry registry;
    private final RpcStats stats;
    private final RpcMetrics metrics;
    /** Flavors handled before any procedure runs (RPCSEC_GSS...); usually none or one. */
    private final RpcAuthenticator[] authenticators;

    /** A dispatcher serving the programs of {@code registry}. */
    public RpcDispatcher(RpcProgramRegistry registry, RpcStats stats) {
        this(registry, stats, null);
    }

    /**
     * A dispatcher serving the programs of {@code registry} that records every call into {@code metrics} (null:
     * none): calls, errors and latency (dispatch to the reply's write) per procedure, bytes of arguments and results.
     */
    public RpcDispatcher(RpcProgramRegistry registry, RpcStats stats, RpcMetrics metrics) {
        this(registry, stats, metrics, new RpcAuthenticator[0]);
    }

    private RpcDispatcher(RpcProgramRegistry registry, RpcStats stats, RpcMetrics metrics,
                          RpcAuthenticator[] authenticators) {
        this.registry = ObjectUtil.checkNotNull(registry, "registry");
        this.stats = ObjectUtil.checkNotNull(stats, "stats");
        this.metrics = metrics;
        this.authenticators = authenticators;
    }

    /**
     * A dispatcher like this one that hands every call of {@code authenticator}'s flavor to it before any procedure
     * runs (e.g. RPCSEC_GSS: {@code dev.rpcrdma.oncrpc.gss.RpcGssAuthenticator}); it replaces an authenticator of
     * the same flavor. Calls it accepts reach their procedure with {@link RpcCallContext#auth()} set and are answered
     * through it (verifier, protected results).
     */
    public RpcDispatcher withAuthenticator(RpcAuthenticator authenticator) {
        ObjectUtil.checkNotNull(authenticator, "authenticator");
        List<RpcAuthenticator> list = new ArrayList<>();
        for (RpcAuthenticator a : authenticators) {
            if (!a.flavor().equals(authenticator.flavor())) {
                list.add(a);
            }
        }
        list.add(authenticator);
        return new RpcDispatcher(registry, stats, metrics, list.toArray(new RpcAuthenticator[0]));
    }

    private RpcAuthenticator authenticator(AuthFlavor flavor) {
        for (RpcAuthenticator a : authenticators) {
            if (a.flavor().equals(flavor)) {
                return a;
            }
        }
        return null;
    }

    /** The metrics recorded into, or null. */
    public RpcMetrics metrics() {
        return metrics;
    }

    /** The registry served. */
    public RpcProgramRegistry registry() {
        return registry;
    }

    /** The counters. */
    public RpcStats stats() {
        return stats;
    }

    /** A call is dispatched; the message is released afterwards (auto-release). */
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, InboundRpcMessage message) {
        if (message.header() instanceof RpcCall) {
            dispatch(ctx, (RpcCall) message.header(), message);
        } else if (isBackwardCaller(ctx)) {
            // The reply to a backward call: on to the connection's RpcClientHandler behind this dispatcher.
            ctx.fireChannelRead(message.retain());
        } else {
            stats.recordUnexpectedMessage();
            logger.warn("{} dropped a REPLY received by a server: {}", ctx.channel(), message.header());
        }
    }

    private static boolean isBackwardCaller(ChannelHandlerContext ctx) {
        RpcBackchannel b = RpcBackchannel.of(ctx.channel());
        return b != null && b.role() == RpcBackchannel.Role.CALLER;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Transport errors (connection reset...) end the connection; nothing else can reach here unhandled.
        logger.warn("{} closing after an error: {}", ctx.channel(), cause.toString());
        ctx.close();
    }

    private void dispatch(ChannelHandlerContext ctx, RpcCall call, InboundRpcMessage message) {
        long start = metrics != null ? System.nanoTime() : 0;
        if (call.rpcvers() != RpcCall.RPC_VERSION) {
            recordRefusal(ctx, RpcErrorKind.DENIED);
            logger.debug("{} rpcvers {} refused: {}", ctx.channel(), call.rpcvers(), call);
            answer(ctx, RpcReply.rpcMismatch(call.xid(), RpcCall.RPC_VERSION, RpcCall.RPC_VERSION));
            return;
        }
        if (call.authError() != null) {
            recordRefusal(ctx, RpcErrorKind.DENIED);
            logger.warn("{} {} refused: {}", ctx.channel(), call, call.authError());
            answer(ctx, RpcReply.authError(call.xid(), call.authError()));
            return;
        }
        RpcCallAuth auth = null;
        ByteBuf unwrapped = null;
        RpcAuthenticator authenticator = authenticators.length == 0 ? null
                : authenticator(call.credential().flavor());
        if (authenticator != null) {
            RpcAuthVerdict verdict;
            try {
                verdict = authenticator.authenticate(ctx.channel(), call, message);
            } catch (RuntimeException e) {
                logger.warn("{} {} authenticator failed for {}", ctx.channel(), authenticator.flavor(), call, e);
                verdict = RpcAuthVerdict.deny(AuthStat.AUTH_FAILED);
            }
            switch (verdict.kind()) {
                case DROP:
                    recordRefusal(ctx, RpcErrorKind.DENIED);
                    return;
                case DENY:
                    recordRefusal(ctx, RpcErrorKind.DENIED);
                    answer(ctx, RpcReply.authError(call.xid(), verdict.authStat()));
                    return;
                case ANSWER:
                    ctx.writeAndFlush(verdict.reply()).addListener(LOG_WRITE_FAILURE);
                    return;
                default:
                    auth = verdict.auth();
                    unwrapped = verdict.arguments();
                    break;
            }
        }
        try {
            dispatch(ctx, call, auth, unwrapped == null ? message.body() : new XdrReader(unwrapped),
                    message.replyEntry(), start);
        } finally {
            if (unwrapped != null) {
                unwrapped.release();
            }
        }
    }

    private void dispatch(ChannelHandlerContext ctx, RpcCall call, RpcCallAuth auth, XdrReader arguments,
                          RpcReplyEntry entry, long start) {
        AuthSysCredential authSys = null;
        if (AuthFlavor.AUTH_SYS.equals(call.credential().flavor())) {
            try {
                authSys = AuthSysCredential.decode(call.credential());
            } catch (XdrException e) {
                logger.warn("{} {} has a malformed AUTH_SYS credential: {}", ctx.channel(), call, e.getMessage());
                recordRefusal(ctx, RpcErrorKind.DENIED);
                answer(ctx, RpcReply.authError(call.xid(), AuthStat.AUTH_BADCRED));
                return;
            }
        }
        RpcProgramRegistry.Lookup found = registry.lookup(call.program(), call.version(), call.procedure());
        if (found.procedure == RpcProcedure.NULL && metrics == null && auth == null) {
            // The built-in NULL procedure (RFC 5531 convention: no arguments, an empty SUCCESS): answered here,
            // with a pooled reply and no write future, so a ping costs no object; straight to the transport handler
            // below when it takes it (RpcReplyEntry: then without the reply's objects), else through the pipeline.
            if (entry != null && entry.writeEmptySuccess(ctx, call.xid())) {
                return;
            }
            OutboundRpcMessage reply = OutboundRpcMessage.newReply(call.xid(), AcceptStat.SUCCESS,
                    XdrPayload.empty());
            if (entry == null) {
                ctx.writeAndFlush(reply, RpcCallContext.voidPromise(ctx.channel()));
            } else if (!entry.writeAndFlush(ctx, reply)) {
                ctx.writeAndFlush(reply, entry.voidPromise());
            }
            return;
        }
        RpcCallContext context = RpcCallContext.newInstance(ctx, call, authSys, auth, entry);
        context.dispatching();
        try {
            if (metrics != null) {
                RpcMetrics m = metrics.forChannel(ctx.channel());
                m.recordBytesIn(arguments.readableBytes() + arguments.placedBytes());
                context.measure(m, m.procedure(call.program(), call.version(), call.procedure()), start);
            }
            run(ctx, call, arguments, found, context);
        } finally {
            context.dispatched();
        }
    }

    private static void run(ChannelHandlerContext ctx, RpcCall call, XdrReader arguments,
                            RpcProgramRegistry.Lookup found, RpcCallContext context) {
        if (!found.programKnown) {
            context.replyError(AcceptStat.PROG_UNAVAIL);
            return;
        }
        if (!found.versionKnown) {
            context.reply(RpcReply.progMismatch(call.xid(), found.low, found.high), XdrPayload.empty());
            return;
        }
        if (found.procedure == null) {
            context.replyError(AcceptStat.PROC_UNAVAIL);
            return;
        }
        try {
            found.procedure.call(context, arguments);
        } catch (XdrException e) {
            GARBAGE_ARGS_LOG.warn(ctx.channel(), call, e);
            if (!context.isReplied()) {
                context.replyError(AcceptStat.GARBAGE_ARGS);
            }
        } catch (RuntimeException t) {
            logger.warn("{} procedure failed for {}", ctx.channel(), call, t);
            if (!context.isReplied()) {
                context.replyError(AcceptStat.SYSTEM_ERR);
            }
        }
    }

    private void recordRefusal(ChannelHandlerContext ctx, RpcErrorKind kind) {
        if (metrics != null) {
            metrics.forChannel(ctx.channel()).recordError(kind);
        }
    }

    private static void answer(ChannelHandlerContext ctx, RpcReply reply) {
        ctx.writeAndFlush(new OutboundRpcMessage(reply, XdrPayload.empty()))
                .addListener(LOG_WRITE_FAILURE);
    }
}
