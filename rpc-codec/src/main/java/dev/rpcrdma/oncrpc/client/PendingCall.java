package dev.rpcrdma.oncrpc.client;

import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.ReplyStat;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.metrics.ProcedureMetrics;
import dev.rpcrdma.oncrpc.metrics.RpcErrorKind;
import dev.rpcrdma.oncrpc.metrics.RpcMetrics;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One call from {@link RpcClient#call} to its outcome. As a {@link Runnable} it is the hand-off of the call to the
 * event loop ({@link RpcClientHandler#send}); {@link CallTimeouts} links it by deadline. The outcome goes to a
 * {@link CompletableFuture} (one object per call, never reused) or to an {@link RpcCallListener}: then the object
 * comes from its handler's free list and goes back once the outcome was handled (the call is written with the
 * channel's void promise, so nothing else refers to it then).
 */
final class PendingCall<T> implements Runnable {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(PendingCall.class);

    /** Whether this call goes back to its handler's free list when done (the listener form). */
    private final boolean pooled;
    RpcClientHandler handler;
    Channel channel;
    int program;
    int version;
    int procedure;
    CallOptions options;
    Duration timeoutDuration;
    /** False when the caller enforces the timeout (no deadline kept by the handler). */
    boolean armTimer;
    XdrPayload args;
    RpcReplyDecoder<T> decoder;
    /** Where the outcome goes: exactly one of the two is set. */
    CompletableFuture<T> future;
    private RpcCallListener<? super T> listener;
    /** Set on the event loop by {@link RpcClientHandler#send}. */
    int xid;
    /** What the options' {@link RpcCallSecurity} sealed the call with (null without one). */
    Object securityState;
    /** The largest reply accepted (0: any), set when the call is sent: the options', or the sealed call's. */
    int maxReplySize;
    /** The XDR bytes of the call's arguments, recorded when it is sent (for a GARBAGE_ARGS answer's message). */
    int argsBytes;
    /** Deadline on the loop's ticker, and the neighbours in {@link CallTimeouts}'s list; event loop only. */
    long deadline;
    PendingCall<?> prev;
    PendingCall<?> next;
    boolean linked;
    private boolean handedOver;
    /** Where this call is recorded (null: not measured), its procedure's counters, when it was sent. */
    private RpcMetrics metrics;
    private ProcedureMetrics procedureMetrics;
    private long startNanos;

    private PendingCall(boolean pooled) {
        this.pooled = pooled;
    }

    /** A call whose outcome completes a new future. */
    static <T> PendingCall<T> withFuture(RpcClientHandler handler, Channel channel, int program, int version,
                                         int procedure, CallOptions options, Duration timeout, boolean armTimer,
                                         XdrPayload args, RpcReplyDecoder<T> decoder) {
        PendingCall<T> call = new PendingCall<>(false);
        call.init(handler, channel, program, version, procedure, options, timeout, armTimer, args, decoder);
        call.future = new CompletableFuture<>();
        return call;
    }

    /** A call whose outcome goes to {@code listener}, reused from {@code handler}'s free list when it has one. */
    @SuppressWarnings("unchecked")
    static <T> PendingCall<T> withListener(RpcClientHandler handler, Channel channel, int program, int version,
                                           int procedure, CallOptions options, Duration timeout, XdrPayload args,
                                           RpcReplyDecoder<T> decoder, RpcCallListener<? super T> listener) {
        PendingCall<T> call = (PendingCall<T>) handler.takeFree();
        if (call == null) {
            call = new PendingCall<>(true);
        }
        call.init(handler, channel, program, version, procedure, options, timeout, true, args, decoder);
        call.listener = listener;
        return call;
    }

    private void init(RpcClientHandler handler, Channel channel, int program, int version, int procedure,
                      CallOptions options, Duration timeout, boolean armTimer, XdrPayload args,
                      RpcReplyDecoder<T> decoder) {
        this.handler = handler;
        this.channel = channel;
        this.program = program;
        this.version = version;
        this.procedure = procedure;
        this.options = options;
        this.timeoutDuration = timeout;
        this.armTimer = armTimer;
        this.args = args;
        this.decoder = decoder;
    }

    @Override
    public void run() {
        if (!handedOver) {
            handedOver = true;
            handler.send(this);
        }
    }

    /** Fails this call with {@link RpcTimeoutException} if it is still pending; event loop only. */
    void timedOut() {
        handler.fail(this, new RpcTimeoutException("no reply to xid " + Integer.toUnsignedString(xid)
                + " within " + timeoutDuration));
    }

    /** Measures this call into {@code m}; event loop, before it is written. */
    void measure(RpcMetrics m) {
        metrics = m;
        procedureMetrics = m.procedure(program, version, procedure);
        startNanos = System.nanoTime();
        m.recordBytesOut(args.inlineLength());
    }

    private void record(RpcErrorKind error) {
        if (metrics != null) {
            metrics.recordCall(procedureMetrics, System.nanoTime() - startNanos, error);
        }
    }

    /** Records a call that ended without an answer (or with a transport's typed failure). */
    void recordFailure(Throwable cause) {
        if (metrics != null) {
            record(cause instanceof RpcTimeoutException ? RpcErrorKind.TIMEOUT
                    : cause instanceof RpcConnectionClosedException ? RpcErrorKind.CONNECTION_CLOSED
                    : RpcErrorKind.TRANSPORT);
        }
    }

    /** The reply arrived: decodes it and delivers the outcome. */
    /** What GARBAGE_ARGS most likely means for this call, naming it and the size of its arguments. */
    static String garbageArgs(int program, int version, int procedure, int argsBytes) {
        return "the server could not decode the " + argsBytes + " bytes of arguments of program 0x"
                + Integer.toHexString(program) + " version " + version + " procedure " + procedure + ", e.g. an argument over a limit the"
                + " procedure declares there (the server logs the procedure, its limit and the size)";
    }

    void complete(RpcReply reply, InboundRpcMessage message) {
        if (metrics != null) {
            metrics.recordBytesIn(message.body().readableBytes() + message.body().placedBytes());
        }
        RpcCallSecurity security = options.security();
        ByteBuf opened = null;
        if (security != null && ReplyStat.MSG_ACCEPTED.equals(reply.replyStat())) {
            try {
                opened = security.open(securityState, reply, message.body());
            } catch (Throwable t) {
                // A verifier that does not check, results that do not unprotect: the call fails, never hangs.
                record(RpcErrorKind.DECODE);
                failWith(t);
                return;
            }
        }
        try {
            complete(reply, opened == null ? message.body() : new XdrReader(opened));
        } finally {
            if (opened != null) {
                opened.release();
            }
        }
    }

    private void complete(RpcReply reply, XdrReader results) {
        if (!reply.isSuccess()) {
            record(RpcMetrics.kindOf(reply));
            failWith(AcceptStat.GARBAGE_ARGS.equals(reply.acceptStat())
                    ? new RpcReplyException(reply, garbageArgs(program, version, procedure, argsBytes))
                    : new RpcReplyException(reply));
            return;
        }
        T result;
        try {
            result = decoder.decode(results);
        } catch (Throwable t) {
            // Whatever the decoder throws (XdrException, a bug, an assertion) ends this call, never hangs it.
            record(RpcErrorKind.DECODE);
            failWith(t);
            return;
        }
        record(null);
        CompletableFuture<T> f = future;
        RpcCallListener<? super T> l = listener;
        release();
        if (f != null) {
            f.complete(result);
        } else {
            try {
                l.onResult(result);
            } catch (Throwable t) {
                logger.warn("{} an RpcCallListener threw from onResult", channel, t);
            }
        }
    }

    /** Delivers a failure (the call is no longer pending). */
    void failWith(Throwable cause) {
        CompletableFuture<T> f = future;
        RpcCallListener<? super T> l = listener;
        Channel ch = channel;
        release();
        if (f != null) {
            f.completeExceptionally(cause);
        } else {
            try {
                l.onFailure(cause);
            } catch (Throwable t) {
                logger.warn("{} an RpcCallListener threw from onFailure", ch, t);
            }
        }
    }

    /** The outcome was taken: a listener call goes back to its handler's free list. */
    private void release() {
        if (!pooled) {
            return;
        }
        RpcClientHandler owner = handler;
        handler = null;
        channel = null;
        options = null;
        timeoutDuration = null;
        args = null;
        decoder = null;
        listener = null;
        prev = null;
        next = null;
        linked = false;
        handedOver = false;
        securityState = null;
        metrics = null;
        procedureMetrics = null;
        owner.giveBack(this);
    }
}
