package dev.rpcrdma.oncrpc.server;

import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.message.AuthStat;
import dev.rpcrdma.oncrpc.message.AuthSysCredential;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.ReplyStat;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.metrics.ProcedureMetrics;
import dev.rpcrdma.oncrpc.metrics.RpcMetrics;
import dev.rpcrdma.oncrpc.xdr.LocalPool;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.VoidChannelPromise;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import io.netty.util.Recycler;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One received call and the way to answer it, exactly once, now or later, from any thread (a promise-like reply
 * context). Later replies after the first are ignored and logged. The reply goes back on the connection (TCP or
 * RDMA) the call arrived on; the procedure never sees the transport.
 *
 * <p>Lifetime: a context answered <em>later</em> (after the procedure returned, or from another thread) is the
 * procedure's for as long as it keeps it. A context answered on the event loop <em>before the procedure returns</em>
 * (the common, synchronous case) is reused for a later call once the procedure has returned, like the arguments'
 * reader: a procedure that answers synchronously must not keep it past its return (read what it needs, such as
 * {@link #authSys()} or {@link #channel()}, before). That is what makes a synchronous call cost no object.
 */
public final class RpcCallContext {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcCallContext.class);

    /** Per event loop; only contexts answered on the loop during their procedure go back (see the class comment). */
    private static final LocalPool<RpcCallContext> POOL = new LocalPool<>(new Recycler<RpcCallContext>() {
        @Override
        protected RpcCallContext newObject(Handle<RpcCallContext> handle) {
            return new RpcCallContext(handle);
        }
    });

    private final Recycler.Handle<RpcCallContext> handle;
    private ChannelHandlerContext ctx;
    /** The transport handler that takes the reply directly ({@link RpcReplyEntry}), or null. */
    private RpcReplyEntry entry;
    // The call header's fields, not the header: the dispatcher's header is pooled with its message, which is
    // released when the procedure returns, while this context may be answered later from any thread.
    private int xid;
    private int program;
    private int version;
    private int procedure;
    private OpaqueAuth credential;
    private OpaqueAuth verifier;
    private AuthSysCredential authSys;
    /** Null unless an {@link RpcAuthenticator} accepted the call (e.g. RPCSEC_GSS). */
    private RpcCallAuth auth;
    /** Event loop only: the dispatcher is running the procedure, and whether it answered meanwhile on the loop. */
    private boolean dispatching;
    private boolean answeredWhileDispatching;
    /** {@link #call()}, built when first asked for. */
    private volatile RpcCall call;
    private static final AttributeKey<ChannelPromise> VOID_PROMISE =
            AttributeKey.valueOf(RpcCallContext.class, "voidReplyPromise");
    private static final AtomicIntegerFieldUpdater<RpcCallContext> REPLIED =
            AtomicIntegerFieldUpdater.newUpdater(RpcCallContext.class, "replied");

    /** 0 until the first reply (a field updater: no extra object per call). */
    private volatile int replied;
    /** Where the reply is recorded (null: no metrics), the procedure's counters and when dispatch began. */
    private RpcMetrics metrics;
    private ProcedureMetrics procedureMetrics;
    private long startNanos;

    private RpcCallContext(Recycler.Handle<RpcCallContext> handle) {
        this.handle = handle;
    }

    /**
     * The context of {@code call} received on {@code ctx}, taken from the loop's pool; the dispatcher brackets the
     * procedure with {@link #dispatching()} and {@link #dispatched()}. Event loop only.
     */
    static RpcCallContext newInstance(ChannelHandlerContext ctx, RpcCall call, AuthSysCredential authSys) {
        return newInstance(ctx, call, authSys, null, null);
    }

    /**
     * {@link #newInstance(ChannelHandlerContext, RpcCall, AuthSysCredential)} of a call {@code auth} accepted (null:
     * none), whose transport handler below takes replies directly ({@code entry}, null: none).
     */
    static RpcCallContext newInstance(ChannelHandlerContext ctx, RpcCall call, AuthSysCredential authSys,
                                      RpcCallAuth auth, RpcReplyEntry entry) {
        RpcCallContext c = POOL.get();
        c.ctx = ctx;
        c.entry = entry;
        c.xid = call.xid();
        c.program = call.program();
        c.version = call.version();
        c.procedure = call.procedure();
        c.credential = call.credential();
        c.verifier = call.verifier();
        c.authSys = authSys;
        c.auth = auth;
        c.call = call.isPooled() ? null : call;
        return c;
    }

    /** The procedure is about to run (event loop). */
    void dispatching() {
        dispatching = true;
    }

    /**
     * The procedure returned (event loop): a context it answered meanwhile, on this loop, goes back to the pool;
     * one answered later, or from another thread, is never reused (a thread still inside {@link #send} may be
     * reading it).
     */
    void dispatched() {
        dispatching = false;
        if (answeredWhileDispatching) {
            answeredWhileDispatching = false;
            ctx = null;
            entry = null;
            credential = null;
            verifier = null;
            authSys = null;
            auth = null;
            call = null;
            metrics = null;
            procedureMetrics = null;
            replied = 0;
            POOL.recycle(this, handle);
        }
    }

    /** Records this call's reply into {@code metrics} (set by the dispatcher before the procedure runs). */
    void measure(RpcMetrics metrics, ProcedureMetrics procedureMetrics, long startNanos) {
        this.metrics = metrics;
        this.procedureMetrics = procedureMetrics;
        this.startNanos = startNanos;
    }

    /** The call header (xid, program, version, procedure, credential, verifier). */
    public RpcCall call() {
        RpcCall c = call;
        if (c == null) {
            c = new RpcCall(xid, RpcCall.RPC_VERSION, program, version, procedure, credential, verifier, null, 0, 0);
            call = c;
        }
        return c;
    }

    /** The call's transaction id (RFC 5531 §9), without building {@link #call()}. */
    public int xid() {
        return xid;
    }

    /** The decoded AUTH_SYS credential, or null if the call used another flavor. */
    public AuthSysCredential authSys() {
        return authSys;
    }

    /** The flavor the call came with (AUTH_NONE, AUTH_SYS, RPCSEC_GSS...). */
    public AuthFlavor flavor() {
        return auth != null ? auth.flavor() : credential.flavor();
    }

    /**
     * What protects the call's arguments and its reply's results: {@link RpcProtection#NONE} unless an
     * authenticator accepted it with more (RPCSEC_GSS integrity: krb5i, privacy: krb5p).
     */
    public RpcProtection protection() {
        return auth != null ? auth.protection() : RpcProtection.NONE;
    }

    /**
     * How an {@link RpcAuthenticator} authenticated the call (principal, identity, protection), or null when no
     * authenticator handled its flavor (AUTH_NONE, AUTH_SYS: see {@link #authSys()}).
     */
    public RpcCallAuth auth() {
        return auth;
    }

    /** The caller identity the authenticator's mapper made of the principal, or null without one. */
    public Object identity() {
        return auth != null ? auth.identity() : null;
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
        return send(null, AcceptStat.SUCCESS, results, null);
    }

    /**
     * Replies MSG_ACCEPTED SUCCESS with the given results, completing {@code promise} when the reply was written;
     * takes ownership of {@code results}. With {@link #voidPromise()} this is the allocation-free form: nothing
     * waits on the write, and a reply that cannot be written is dropped, as {@link #replySuccess(XdrPayload)}'s
     * future would report for a connection that is gone (the client then sees the connection close or its call
     * time out).
     */
    public ChannelFuture replySuccess(XdrPayload results, ChannelPromise promise) {
        return send(null, AcceptStat.SUCCESS, results, ObjectUtil.checkNotNull(promise, "promise"));
    }

    /**
     * The connection's void promise for replies that nobody waits on ({@link #replySuccess(XdrPayload,
     * ChannelPromise)}): one per connection, and a reply it carries that fails is dropped silently (a plain
     * {@code channel().voidPromise()} would fire the failure through the pipeline, which closes the connection).
     */
    public ChannelPromise voidPromise() {
        RpcReplyEntry e = entry;
        return e != null ? e.voidPromise() : voidPromise(ctx.channel());
    }

    /** {@link #voidPromise()} of {@code channel}. */
    static ChannelPromise voidPromise(Channel channel) {
        Attribute<ChannelPromise> a = channel.attr(VOID_PROMISE);
        ChannelPromise p = a.get();
        if (p == null) {
            p = new VoidChannelPromise(channel, false);
            ChannelPromise existing = a.setIfAbsent(p);
            if (existing != null) {
                p = existing;
            }
        }
        return p;
    }

    /** Replies MSG_ACCEPTED SUCCESS with no results (void). */
    public ChannelFuture replySuccess() {
        return replySuccess(XdrPayload.empty());
    }

    /** Replies MSG_ACCEPTED with an error status (PROC_UNAVAIL, GARBAGE_ARGS, SYSTEM_ERR, PROG_UNAVAIL). */
    public ChannelFuture replyError(AcceptStat stat) {
        if (AcceptStat.PROG_MISMATCH.equals(ObjectUtil.checkNotNull(stat, "stat"))) {
            throw new IllegalArgumentException("PROG_MISMATCH needs low/high: use reply(RpcReply.progMismatch(...))");
        }
        return send(null, stat, XdrPayload.empty(), null);
    }

    /** Replies MSG_DENIED AUTH_ERROR with the given reason (e.g. AUTH_TOOWEAK for an unsupported flavor). */
    public ChannelFuture replyAuthError(AuthStat why) {
        return send(RpcReply.authError(xid, why), null, XdrPayload.empty(), null);
    }

    /** Sends any reply header (with results only for SUCCESS); takes ownership of {@code body}. */
    public ChannelFuture reply(RpcReply reply, XdrPayload body) {
        return send(ObjectUtil.checkNotNull(reply, "reply"), null, body, null);
    }

    /**
     * Sends {@code reply}, or (null) a pooled MSG_ACCEPTED reply with {@code stat} (the allocation-free path of
     * {@link #replySuccess} and {@link #replyError}), with {@code promise} or (null) a new future whose failure is
     * logged; takes ownership of {@code body}.
     */
    private ChannelFuture send(RpcReply reply, AcceptStat stat, XdrPayload body, ChannelPromise promise) {
        if (!REPLIED.compareAndSet(this, 0, 1)) {
            body.release();
            logger.warn("{} second reply to {} ignored", ctx.channel(), call());
            IllegalStateException answered = new IllegalStateException("call already answered: " + call());
            if (promise != null && !promise.isVoid()) {
                promise.tryFailure(answered);
                return promise;
            }
            return ctx.newFailedFuture(answered);
        }
        if (dispatching && ctx.executor().inEventLoop()) {
            answeredWhileDispatching = true; // reused once the procedure returns (see dispatched())
        }
        OutboundRpcMessage message;
        RpcCallAuth a = auth;
        if (a == null) {
            message = reply != null ? new OutboundRpcMessage(reply, body)
                    : OutboundRpcMessage.newReply(xid, stat, body);
        } else if (reply == null || ReplyStat.MSG_ACCEPTED.equals(reply.replyStat())
                && !AcceptStat.PROG_MISMATCH.equals(reply.acceptStat())) {
            // The flavor's verifier, and the results protected (RFC 2203 §5.3.3.2).
            message = a.protect(xid, reply == null ? stat : reply.acceptStat(), body, ctx.alloc());
        } else {
            message = new OutboundRpcMessage(a.protect(reply), body);
        }
        if (metrics != null) {
            metrics.recordBytesOut(body.inlineLength());
            metrics.recordCall(procedureMetrics, System.nanoTime() - startNanos,
                    RpcMetrics.kindOf((RpcReply) message.header()));
        }
        if (promise != null) {
            RpcReplyEntry e = entry;
            if (e != null && promise == e.voidPromise() && e.writeAndFlush(ctx, message)) {
                return promise;
            }
            return ctx.writeAndFlush(message, promise);
        }
        return ctx.writeAndFlush(message).addListener(RpcDispatcher.LOG_WRITE_FAILURE);
    }
}
