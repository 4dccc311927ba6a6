package dev.rpcrdma.oncrpc.server;

import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.AuthStat;
import dev.rpcrdma.oncrpc.message.AuthSysCredential;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.metrics.ProcedureMetrics;
import dev.rpcrdma.oncrpc.metrics.RpcMetrics;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One received call and the way to answer it, exactly once, now or later, from any thread (a promise-like reply
 * context). Later replies after the first are ignored and logged. The reply goes back on the connection (TCP or
 * RDMA) the call arrived on; the procedure never sees the transport.
 */
public final class RpcCallContext {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcCallContext.class);

    private final ChannelHandlerContext ctx;
    private final RpcCall call;
    private final AuthSysCredential authSys;
    private static final AtomicIntegerFieldUpdater<RpcCallContext> REPLIED =
            AtomicIntegerFieldUpdater.newUpdater(RpcCallContext.class, "replied");

    /** 0 until the first reply (a field updater: no extra object per call). */
    private volatile int replied;
    /** Where the reply is recorded (null: no metrics), the procedure's counters and when dispatch began. */
    private RpcMetrics metrics;
    private ProcedureMetrics procedureMetrics;
    private long startNanos;

    RpcCallContext(ChannelHandlerContext ctx, RpcCall call, AuthSysCredential authSys) {
        this.ctx = ctx;
        this.call = call;
        this.authSys = authSys;
    }

    /** Records this call's reply into {@code metrics} (set by the dispatcher before the procedure runs). */
    void measure(RpcMetrics metrics, ProcedureMetrics procedureMetrics, long startNanos) {
        this.metrics = metrics;
        this.procedureMetrics = procedureMetrics;
        this.startNanos = startNanos;
    }

    /** The call header (xid, program, version, procedure, credential, verifier). */
    public RpcCall call() {
        return call;
    }

    /** The decoded AUTH_SYS credential, or null if the call used another flavor. */
    public AuthSysCredential authSys() {
        return authSys;
    }

    /** The channel the call came in on (for its address or attributes; do not write to it directly). */
    public Channel channel() {
        return ctx.channel();
    }

    /**
     * The backchannel of the connection the call came on (null if the server was not set up with one): to read
     * its size limit or to {@link RpcBackchannel#enable() enable} it when the client asked for it.
     */
    public RpcBackchannel backchannel() {
        return RpcBackchannel.of(ctx.channel());
    }

    /**
     * A client calling back over the connection this call came on (backward direction), with the ordinary client
     * API: asynchronous {@link RpcClient#call}, blocking {@link RpcClient#callAndWait}, timeouts, typed errors. Its
     * calls fail with {@link dev.rpcrdma.oncrpc.client.RpcBackchannelException} until the backchannel is enabled.
     *
     * @throws IllegalStateException if the server was not set up with a backchannel
     *         ({@code TcpRpcServerInitializer.withBackchannel()}, {@code RpcRdmaServerInitializer.withBackchannel()})
     */
    public RpcClient callback() {
        RpcBackchannel b = RpcBackchannel.of(ctx.channel());
        if (b == null || b.role() != RpcBackchannel.Role.CALLER) {
            throw new IllegalStateException("no backchannel on " + ctx.channel() + ": set the server up with one "
                    + "(TcpRpcServerInitializer.withBackchannel(), RpcRdmaServerInitializer.withBackchannel())");
        }
        return RpcClient.of(ctx.channel());
    }

    /** Allocator for result buffers. */
    public ByteBufAllocator alloc() {
        return ctx.alloc();
    }

    /** A new empty payload for the results. */
    public XdrPayload newPayload() {
        return XdrPayload.newPayload(ctx.alloc());
    }

    /** Whether a reply was already sent. */
    public boolean isReplied() {
        return replied != 0;
    }

    /** Replies MSG_ACCEPTED SUCCESS with the given results; takes ownership of {@code results}. */
    public ChannelFuture replySuccess(XdrPayload results) {
        return send(RpcReply.success(call.xid()), results);
    }

    /** Replies MSG_ACCEPTED SUCCESS with no results (void). */
    public ChannelFuture replySuccess() {
        return replySuccess(XdrPayload.empty());
    }

    /** Replies MSG_ACCEPTED with an error status (PROC_UNAVAIL, GARBAGE_ARGS, SYSTEM_ERR, PROG_UNAVAIL). */
    public ChannelFuture replyError(AcceptStat stat) {
        return send(RpcReply.accepted(call.xid(), OpaqueAuth.NONE, stat), XdrPayload.empty());
    }

    /** Replies MSG_DENIED AUTH_ERROR with the given reason (e.g. AUTH_TOOWEAK for an unsupported flavor). */
    public ChannelFuture replyAuthError(AuthStat why) {
        return send(RpcReply.authError(call.xid(), why), XdrPayload.empty());
    }

    /** Sends any reply header (with results only for SUCCESS); takes ownership of {@code body}. */
    public ChannelFuture reply(RpcReply reply, XdrPayload body) {
        return send(reply, body);
    }

    private ChannelFuture send(RpcReply reply, XdrPayload body) {
        if (!REPLIED.compareAndSet(this, 0, 1)) {
            body.release();
            logger.warn("{} second reply to {} ignored", ctx.channel(), call);
            return ctx.newFailedFuture(new IllegalStateException("call already answered: " + call));
        }
        if (metrics != null) {
            metrics.recordBytesOut(body.inlineLength());
            metrics.recordCall(procedureMetrics, System.nanoTime() - startNanos, RpcMetrics.kindOf(reply));
        }
        OutboundRpcMessage message = new OutboundRpcMessage(reply, body);
        return ctx.writeAndFlush(message).addListener(RpcDispatcher.LOG_WRITE_FAILURE);
    }
}
