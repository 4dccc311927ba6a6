package dev.rpcrdma.oncrpc.gss;

import dev.rpcrdma.oncrpc.client.RpcCallSecurity;
import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.message.AuthStat;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.server.RpcAuthVerdict;
import dev.rpcrdma.oncrpc.server.RpcAuthenticator;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSCredential;
import org.ietf.jgss.GSSException;
import org.ietf.jgss.GSSManager;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The server side of RPCSEC_GSS version 1 (RFC 2203) on the JDK's GSS-API, as an {@link RpcAuthenticator} for
 * {@code RpcDispatcher.withAuthenticator}: context creation (INIT, CONTINUE_INIT, §5.2), DESTROY (§5.4), and for
 * data requests the header MIC, the sequence window (§5.3.3.1) and the integrity and privacy bodies (§5.3.2). The
 * accepting credential is typically a keytab's ({@link Krb5Credentials#acceptor}). Procedures see the call's
 * principal, identity ({@link RpcGssIdentityMapper}) and protection through {@code RpcCallContext}.
 *
 * <p>Answers, per RFC 2203 §5.3.3.3 (each logged, rate-limited, and counted in {@link #stats()}): a credential that
 * does not decode: AUTH_BADCRED; an unknown, destroyed or still-establishing handle, or a header MIC that does not
 * verify: RPCSEC_GSS_CREDPROBLEM; a verifier of another flavor: AUTH_BADVERF; an expired context or a sequence
 * number above MAXSEQ: RPCSEC_GSS_CTXPROBLEM; a replayed or out-of-window sequence number: dropped silently; an
 * integrity or privacy body that does not verify: GARBAGE_ARGS. A failed INIT gets its GSS status in the result.
 * The JDK acceptor does no network I/O; its work (and every MIC, wrap and unwrap) runs on the event loop.
 */
public final class RpcGssAuthenticator implements RpcAuthenticator {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcGssAuthenticator.class);
    private static final byte[] EMPTY = new byte[0];
    private static final long WARN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final GSSCredential acceptor;
    private final RpcGssLimits limits;
    private final RpcGssIdentityMapper mapper;
    private final LongSupplier clock;
    private final RpcGssStats stats = new RpcGssStats();
    private final GssContextTable table;
    /** Whether this authenticator only checks a client's callbacks ({@link #forCallbacks}). */
    private final boolean callbacksOnly;
    /** Context handles: unpredictable, from a generator seeded once (no entropy read per INIT on the event loop). */
    private final SecureRandom random = handleGenerator();
    private final GSSManager manager = GSSManager.getInstance();
    private volatile long nextWarn;

    /**
     * Accepts contexts with {@code acceptor} (null: the JDK's default acceptor credentials, which need
     * {@code javax.security.auth.useSubjectCredsOnly=false} and a JAAS entry), with the default limits and the
     * principal name as identity.
     */
    public RpcGssAuthenticator(GSSCredential acceptor) {
        this(acceptor, RpcGssLimits.DEFAULT, RpcGssIdentityMapper.PRINCIPAL_NAME, System::nanoTime);
    }

    RpcGssAuthenticator(GSSCredential acceptor, RpcGssLimits limits, RpcGssIdentityMapper mapper,
                        LongSupplier clock) {
        this.acceptor = acceptor;
        this.limits = ObjectUtil.checkNotNull(limits, "limits");
        this.mapper = ObjectUtil.checkNotNull(mapper, "mapper");
        this.clock = clock;
        this.table = new GssContextTable(limits.maxContexts(), limits.maxContextsPerPeer(), stats);
        this.callbacksOnly = false;
    }

    private RpcGssAuthenticator(RpcGssLimits limits) {
        this.acceptor = null;
        this.limits = limits;
        this.mapper = RpcGssIdentityMapper.PRINCIPAL_NAME;
        this.clock = System::nanoTime;
        this.table = new GssContextTable(limits.maxContexts(), limits.maxContextsPerPeer(), stats);
        this.callbacksOnly = true;
    }

    /** A new authenticator (no contexts yet) like this one with {@code limits}. */
    public RpcGssAuthenticator withLimits(RpcGssLimits limits) {
        return new RpcGssAuthenticator(acceptor, limits, mapper, clock);
    }

    /** A new authenticator (no contexts yet) like this one mapping principals with {@code mapper}. */
    public RpcGssAuthenticator withIdentityMapper(RpcGssIdentityMapper mapper) {
        return new RpcGssAuthenticator(acceptor, limits, mapper, clock);
    }

    /** The same with a clock of its own (System.nanoTime-style), for tests of expiry. */
    RpcGssAuthenticator withClock(LongSupplier clock) {
        return new RpcGssAuthenticator(acceptor, limits, mapper, clock);
    }

    /** The counters. */
    public RpcGssStats stats() {
        return stats;
    }

    /** The limits. */
    public RpcGssLimits limits() {
        return limits;
    }

    /** Contexts currently kept (established or being established). */
    public int contexts() {
        return table.size();
    }

    @Override
    public AuthFlavor flavor() {
        return AuthFlavor.RPCSEC_GSS;
    }

    @Override
    public RpcAuthVerdict authenticate(Channel channel, RpcCall call, InboundRpcMessage message) {
        RpcGssCred cred;
        try {
            cred = RpcGssCred.decode(call.credential().body());
        } catch (XdrException e) {
            stats.badCredential();
            warn("{} {}: malformed RPCSEC_GSS credential: {}", channel, call, e.getMessage());
            return RpcAuthVerdict.deny(AuthStat.AUTH_BADCRED);
        }
        if (cred.proc == RpcGssCred.INIT || cred.proc == RpcGssCred.CONTINUE_INIT) {
            return init(channel, call, cred, message);
        }
        return data(channel, call, cred, message);
    }

    /**
     * The security of callbacks to a client on a context it made here (NFSv4.1's {@code gss_cb_handles4}, RFC 5661
     * §2.10.8.2): calls carry {@code backHandle} (the client's {@code gcbp_handle_from_client}) and
     * {@code service}, a sequence of their own (one per context and back handle, RFC 5661 §2.10.8.2: keep the
     * result, do not ask again per call), and are protected by the context of {@code handle} (its
     * {@code gcbp_handle_from_server}); replies are checked with it. Null when no established, unexpired context
     * has {@code handle} (NFSv4.1 answers NFS4ERR_NOENT). Calls fail with {@link RpcGssException} once the context
     * is destroyed or expires.
     */
    public RpcCallSecurity callbackSecurity(byte[] handle, byte[] backHandle, RpcGssService service) {
        ObjectUtil.checkNotNull(handle, "handle");
        ObjectUtil.checkNotNull(backHandle, "backHandle");
        ObjectUtil.checkNotNull(service, "service");
        GssServerContext context = table.get(new GssServerContext.Handle(handle));
        if (context == null || !context.isEstablished() || context.isExpired(clock.getAsLong())) {
            return null;
        }
        return new GssCaller(context.gss, backHandle.clone(), service, context.backSequence(backHandle), () -> {
            if (context.isExpired(clock.getAsLong())) {
                throw new RpcGssException("the RPCSEC_GSS context of the callbacks ended: " + context);
            }
        });
    }

    /**
     * An authenticator for a client's callback service ({@code RpcDispatcher.withAuthenticator} on the dispatcher
     * given to the client's connection): it accepts the server's callbacks under the contexts this client offered
     * for them ({@link #acceptCallbacks}; RFC 5661 §2.10.8.2, NFSv4.1's {@code gss_cb_handles4}), checking each
     * one's header MIC, sequence window and protected body and protecting its reply as a server does; it creates
     * no context (INIT is AUTH_BADCRED) and refuses any other handle (RPCSEC_GSS_CREDPROBLEM).
     */
    public static RpcGssAuthenticator forCallbacks() {
        return new RpcGssAuthenticator(RpcGssLimits.DEFAULT);
    }

    /**
     * Accepts callbacks that carry {@code backHandle} (the {@code gcbp_handle_from_client} to offer with
     * {@link RpcGssClientContext#handle()}), protected by {@code context}, until it is destroyed or expires. For an
     * authenticator made by {@link #forCallbacks()} only.
     */
    public void acceptCallbacks(RpcGssClientContext context, byte[] backHandle) {
        ObjectUtil.checkNotNull(context, "context");
        ObjectUtil.checkNotNull(backHandle, "backHandle");
        if (!callbacksOnly) {
            throw new IllegalStateException("not an authenticator of callbacks: use RpcGssAuthenticator.forCallbacks()");
        }
        if (backHandle.length == 0 || backHandle.length > OpaqueAuth.MAX_BODY - 20) {
            throw new IllegalArgumentException("a back handle of " + backHandle.length + " bytes");
        }
        for (GssServerContext e : table.add(context.backContext(backHandle))) {
            e.dispose();
        }
    }

    /** RFC 2203 §5.2.3.1: INIT and CONTINUE_INIT. */
    private RpcAuthVerdict init(Channel channel, RpcCall call, RpcGssCred cred, InboundRpcMessage message) {
        if (callbacksOnly) {
            // Callbacks use the client's context (RFC 5661 §2.10.8.2): nothing is created on a client.
            stats.initFailure();
            warn("{} {}: RPCSEC_GSS {} on a client's callback service refused", channel, call,
                    RpcGssCred.procName(cred.proc));
            return RpcAuthVerdict.deny(AuthStat.AUTH_BADCRED);
        }
        byte[] token;
        try {
            // Refused before it is allocated when over the bound.
            token = message.body().readOpaque(limits.maxInitToken());
        } catch (XdrException e) {
            stats.initFailure();
            warn("{} {}: RPCSEC_GSS {} token refused: {}", channel, call, RpcGssCred.procName(cred.proc),
                    e.getMessage());
            return RpcAuthVerdict.answer(OutboundRpcMessage.newReply(call.xid(), AcceptStat.GARBAGE_ARGS,
                    XdrPayload.empty()));
        }
        GssServerContext context;
        if (cred.proc == RpcGssCred.INIT) {
            if (cred.handle.length != 0) {
                stats.badCredential();
                warn("{} {}: RPCSEC_GSS INIT with a handle", channel, call);
                return RpcAuthVerdict.deny(AuthStat.AUTH_BADCRED);
            }
            GSSContext gss;
            try {
                gss = manager.createContext(acceptor);
            } catch (GSSException e) {
                return initFailed(channel, call, null, e);
            }
            GssServerContext.Handle handle;
            do {
                byte[] bytes = new byte[8];
                random.nextBytes(bytes);
                handle = new GssServerContext.Handle(bytes);
            } while (table.get(handle) != null);
            context = new GssServerContext(handle, peer(channel), gss, limits.window());
        } else {
            context = table.get(new GssServerContext.Handle(cred.handle));
            if (context == null || context.isEstablished()) {
                stats.unknownHandle();
                warn("{} {}: RPCSEC_GSS CONTINUE_INIT of no context being established", channel, call);
                return RpcAuthVerdict.deny(AuthStat.RPCSEC_GSS_CREDPROBLEM);
            }
        }
        byte[] out;
        String principal;
        try {
            synchronized (context.gss) {
                out = context.gss.acceptSecContext(token, 0, token.length);
                principal = context.gss.isEstablished() ? context.gss.getSrcName().toString() : null;
            }
        } catch (GSSException e) {
            return initFailed(channel, call, context, e);
        } catch (RuntimeException e) {
            // The mechanism's own parser tripped over a malformed token.
            return initFailed(channel, call, context, new GSSException(GSSException.DEFECTIVE_TOKEN, 0,
                    e.toString()));
        }
        if (out == null) {
            out = EMPTY;
        }
        if (principal == null) {
            if (cred.proc == RpcGssCred.INIT) {
                admit(context);
            }
            return initReply(channel, call, OpaqueAuth.NONE, new RpcGssInitRes(context.handle.bytes,
                    RpcGssInitRes.GSS_S_CONTINUE_NEEDED, 0, limits.window(), out));
        }
        Object identity;
        try {
            identity = mapper.identity(principal);
        } catch (RuntimeException e) {
            logger.warn("{} the identity mapper failed for {}", channel, principal, e);
            identity = null;
        }
        if (identity == null) {
            return initFailed(channel, call, context, new GSSException(GSSException.UNAUTHORIZED, 0,
                    "no identity for " + principal));
        }
        long lifetimeNanos = limits.maxLifetime().toNanos();
        int gssLifetime = context.gss.getLifetime();
        if (gssLifetime != GSSContext.INDEFINITE_LIFETIME) {
            lifetimeNanos = Math.min(lifetimeNanos, TimeUnit.SECONDS.toNanos(Math.max(0, gssLifetime)));
        }
        context.established(principal, identity, clock.getAsLong() + lifetimeNanos);
        OpaqueAuth verifier;
        try {
            verifier = GssBody.mic(context.gss, GssBody.intBytes(limits.window()));
        } catch (GSSException e) {
            return initFailed(channel, call, context, e);
        }
        if (cred.proc == RpcGssCred.INIT) {
            admit(context);
        }
        stats.contextEstablished();
        logger.debug("{} RPCSEC_GSS context established for {} ({})", channel, principal, context.handle);
        return initReply(channel, call, verifier, new RpcGssInitRes(context.handle.bytes,
                RpcGssInitRes.GSS_S_COMPLETE, 0, limits.window(), out));
    }

    private void admit(GssServerContext context) {
        List<GssServerContext> evicted = table.add(context);
        for (GssServerContext e : evicted) {
            logger.debug("RPCSEC_GSS {} evicted for a new context of {}", e, context.peer);
            e.dispose();
        }
    }

    private RpcAuthVerdict initFailed(Channel channel, RpcCall call, GssServerContext context, GSSException e) {
        stats.initFailure();
        warn("{} {}: RPCSEC_GSS context creation failed: {}", channel, call, e.getMessage());
        if (context != null) {
            table.remove(context);
            context.dispose();
        }
        return initReply(channel, call, OpaqueAuth.NONE, new RpcGssInitRes(EMPTY,
                RpcGssInitRes.rfc2744Major(e.getMajor()), e.getMinor(), 0, EMPTY));
    }

    private static RpcAuthVerdict initReply(Channel channel, RpcCall call, OpaqueAuth verifier, RpcGssInitRes res) {
        XdrPayload results = XdrPayload.newPayload(channel.alloc());
        res.encode(results.writer());
        return RpcAuthVerdict.answer(OutboundRpcMessage.newReply(call.xid(), verifier, AcceptStat.SUCCESS,
                results));
    }

    /** RFC 2203 §5.3.3 (DATA) and §5.4 (DESTROY). */
    private RpcAuthVerdict data(Channel channel, RpcCall call, RpcGssCred cred, InboundRpcMessage message) {
        GssServerContext context = table.get(new GssServerContext.Handle(cred.handle));
        if (context == null || !context.isEstablished()) {
            stats.unknownHandle();
            warn("{} {}: RPCSEC_GSS {} of an unknown handle", channel, call, RpcGssCred.procName(cred.proc));
            return RpcAuthVerdict.deny(AuthStat.RPCSEC_GSS_CREDPROBLEM);
        }
        if (context.isExpired(clock.getAsLong())) {
            if (table.remove(context)) {
                stats.contextExpired();
                context.dispose();
            }
            warn("{} {}: RPCSEC_GSS {} expired", channel, call, context);
            return RpcAuthVerdict.deny(AuthStat.RPCSEC_GSS_CTXPROBLEM);
        }
        OpaqueAuth verifier = call.verifier();
        if (!AuthFlavor.RPCSEC_GSS.equals(verifier.flavor())) {
            stats.badVerifier();
            warn("{} {}: RPCSEC_GSS call with a {} verifier", channel, call, verifier.flavor());
            return RpcAuthVerdict.deny(AuthStat.AUTH_BADVERF);
        }
        if (!GssBody.verifyMic(context.gss, verifier.body(), GssBody.headerBytes(call))) {
            stats.badVerifier();
            warn("{} {}: the RPCSEC_GSS header checksum does not verify ({})", channel, call, context);
            return RpcAuthVerdict.deny(AuthStat.RPCSEC_GSS_CREDPROBLEM);
        }
        if (Integer.toUnsignedLong(cred.seq) > RpcGssCred.MAXSEQ) {
            warn("{} {}: RPCSEC_GSS sequence number over MAXSEQ", channel, call);
            return RpcAuthVerdict.deny(AuthStat.RPCSEC_GSS_CTXPROBLEM);
        }
        if (!context.acceptSequence(cred.seq)) {
            stats.replayDrop();
            logger.debug("{} {}: RPCSEC_GSS sequence number {} replayed or out of the window, dropped", channel,
                    call, Integer.toUnsignedString(cred.seq));
            return RpcAuthVerdict.drop();
        }
        GssCallAuth auth = new GssCallAuth(context, cred.seq, cred.service);
        if (cred.proc == RpcGssCred.DESTROY) {
            OutboundRpcMessage reply = auth.protect(call.xid(), AcceptStat.SUCCESS, XdrPayload.empty(),
                    channel.alloc());
            if (table.remove(context)) {
                stats.contextDestroyed();
                context.dispose();
            }
            logger.debug("{} RPCSEC_GSS {} destroyed", channel, context);
            return RpcAuthVerdict.answer(reply);
        }
        long reduced = message.reducedBytes() + message.body().placedBytes();
        if (cred.service != RpcGssService.NONE && reduced > 0) {
            // RFC 8166 §8.2.2.3: integrity and privacy cover the whole XDR stream; a requester that moved part of
            // it into Read chunks (a reduced data item, position > 0) sent a body that cannot verify.
            stats.reducedBody();
            warn("{} {}: RPCSEC_GSS {} body reduced by DDP ({} bytes in Read chunks) refused (RFC 8166 §8.2.2)",
                    channel, call, cred.service, reduced);
            return RpcAuthVerdict.answer(auth.protect(call.xid(), AcceptStat.GARBAGE_ARGS, XdrPayload.empty(),
                    channel.alloc()));
        }
        ByteBuf arguments;
        try {
            arguments = GssBody.unwrap(context.gss, cred.service, cred.seq, message.body());
        } catch (XdrException e) {
            stats.badBody();
            warn("{} {}: RPCSEC_GSS {} body refused: {}", channel, call, cred.service, e.getMessage());
            return RpcAuthVerdict.answer(auth.protect(call.xid(), AcceptStat.GARBAGE_ARGS, XdrPayload.empty(),
                    channel.alloc()));
        }
        return RpcAuthVerdict.accept(auth, arguments);
    }

    private static SecureRandom handleGenerator() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (java.security.NoSuchAlgorithmException e) {
            return new SecureRandom();
        }
    }

    private static Object peer(Channel channel) {
        SocketAddress a = channel.remoteAddress();
        if (a instanceof InetSocketAddress && ((InetSocketAddress) a).getAddress() != null) {
            return ((InetSocketAddress) a).getAddress();
        }
        return String.valueOf(a);
    }

    /** A warning, at most one a second (a flood of bad requests must not flood the log); the rest at debug. */
    private void warn(String format, Object... args) {
        long now = System.nanoTime();
        long next = nextWarn;
        if (now - next >= 0) {
            nextWarn = now + WARN_INTERVAL_NANOS;
            logger.warn(format, args);
        } else {
            logger.debug(format, args);
        }
    }

    @Override
    public String toString() {
        return "RpcGssAuthenticator(" + limits + ", contexts=" + contexts() + ", " + stats + ')';
    }
}
