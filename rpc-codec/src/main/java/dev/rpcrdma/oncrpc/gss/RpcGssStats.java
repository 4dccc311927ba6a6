package dev.rpcrdma.oncrpc.gss;

import dev.rpcrdma.oncrpc.metrics.RpcMetrics;
import io.netty.util.internal.ObjectUtil;

import java.util.concurrent.atomic.LongAdder;

/** Counters of an {@link RpcGssAuthenticator}: contexts, and every refused or dropped request by reason. */
public final class RpcGssStats {

    private final LongAdder contextsEstablished = new LongAdder();
    private final LongAdder contextsDestroyed = new LongAdder();
    private final LongAdder contextsEvicted = new LongAdder();
    private final LongAdder contextsExpired = new LongAdder();
    private final LongAdder initFailures = new LongAdder();
    private final LongAdder badCredentials = new LongAdder();
    private final LongAdder unknownHandles = new LongAdder();
    private final LongAdder badVerifiers = new LongAdder();
    private final LongAdder replayDrops = new LongAdder();
    private final LongAdder badBodies = new LongAdder();
    private final LongAdder reducedBodies = new LongAdder();

    void contextEstablished() {
        contextsEstablished.increment();
    }

    void contextDestroyed() {
        contextsDestroyed.increment();
    }

    void contextEvicted() {
        contextsEvicted.increment();
    }

    void contextExpired() {
        contextsExpired.increment();
    }

    void initFailure() {
        initFailures.increment();
    }

    void badCredential() {
        badCredentials.increment();
    }

    void unknownHandle() {
        unknownHandles.increment();
    }

    void badVerifier() {
        badVerifiers.increment();
    }

    void replayDrop() {
        replayDrops.increment();
    }

    void badBody() {
        badBodies.increment();
    }

    void reducedBody() {
        reducedBodies.increment();
    }

    /** Contexts established (INIT / CONTINUE_INIT completed). */
    public long contextsEstablished() {
        return contextsEstablished.sum();
    }

    /** Contexts the client destroyed (RPCSEC_GSS_DESTROY). */
    public long contextsDestroyed() {
        return contextsDestroyed.sum();
    }

    /** Contexts evicted to admit a new one (past the total or per-peer bound). */
    public long contextsEvicted() {
        return contextsEvicted.sum();
    }

    /** Contexts found expired (their requests got RPCSEC_GSS_CTXPROBLEM). */
    public long contextsExpired() {
        return contextsExpired.sum();
    }

    /** INIT / CONTINUE_INIT calls that failed (a bad token, an unmapped principal, a token over the bound). */
    public long initFailures() {
        return initFailures.sum();
    }

    /** Credentials that did not decode (AUTH_BADCRED). */
    public long badCredentials() {
        return badCredentials.sum();
    }

    /** Requests naming an unknown or destroyed handle (RPCSEC_GSS_CREDPROBLEM). */
    public long unknownHandles() {
        return unknownHandles.sum();
    }

    /** Verifiers that were not RPCSEC_GSS or whose MIC did not verify (AUTH_BADVERF, RPCSEC_GSS_CREDPROBLEM). */
    public long badVerifiers() {
        return badVerifiers.sum();
    }

    /** Requests dropped as replayed or below the sequence window (RFC 2203 §5.3.3.1). */
    public long replayDrops() {
        return replayDrops.sum();
    }

    /** Integrity or privacy bodies that did not verify or unwrap (GARBAGE_ARGS). */
    public long badBodies() {
        return badBodies.sum();
    }

    /**
     * Integrity or privacy calls whose body a requester reduced by DDP, Read chunks inside the protected body
     * (RFC 8166 §8.2.2: never allowed; GARBAGE_ARGS).
     */
    public long reducedBodies() {
        return reducedBodies.sum();
    }

    /**
     * Exposes these counters in {@code metrics} (its JMX MBean and {@link RpcMetrics#attached()}) as
     * {@code RpcGss.ContextsEstablished}, {@code .ContextsDestroyed}, {@code .ContextsEvicted},
     * {@code .ContextsExpired}, {@code .InitFailures}, {@code .BadCredentials}, {@code .UnknownHandles},
     * {@code .BadVerifiers}, {@code .ReplayDrops}, {@code .BadBodies}, {@code .ReducedBodies}; returns {@code metrics}.
     */
    public RpcMetrics attachTo(RpcMetrics metrics) {
        return ObjectUtil.checkNotNull(metrics, "metrics")
                .attach("RpcGss.ContextsEstablished", this::contextsEstablished)
                .attach("RpcGss.ContextsDestroyed", this::contextsDestroyed)
                .attach("RpcGss.ContextsEvicted", this::contextsEvicted)
                .attach("RpcGss.ContextsExpired", this::contextsExpired)
                .attach("RpcGss.InitFailures", this::initFailures)
                .attach("RpcGss.BadCredentials", this::badCredentials)
                .attach("RpcGss.UnknownHandles", this::unknownHandles)
                .attach("RpcGss.BadVerifiers", this::badVerifiers)
                .attach("RpcGss.ReplayDrops", this::replayDrops)
                .attach("RpcGss.BadBodies", this::badBodies)
                .attach("RpcGss.ReducedBodies", this::reducedBodies);
    }

    @Override
    public String toString() {
        return "RpcGssStats(established=" + contextsEstablished() + ", destroyed=" + contextsDestroyed()
                + ", evicted=" + contextsEvicted() + ", expired=" + contextsExpired() + ", initFailures="
                + initFailures() + ", badCredentials=" + badCredentials() + ", unknownHandles=" + unknownHandles()
                + ", badVerifiers=" + badVerifiers() + ", replayDrops=" + replayDrops() + ", badBodies="
                + badBodies() + ", reducedBodies=" + reducedBodies() + ')';
    }
}
