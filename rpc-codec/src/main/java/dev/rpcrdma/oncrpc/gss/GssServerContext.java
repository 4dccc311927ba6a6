package dev.rpcrdma.oncrpc.gss;

import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSException;

/**
 * One RPCSEC_GSS context on the accepting side (RFC 2203 §5.2.3.1): its handle, the {@link GSSContext}, the
 * sequence window and, once established, the principal and the identity mapped from it. Usually the server's own
 * context; on a client, the back handle of callbacks (RFC 5661 §2.10.8.2) over the client's context, which it
 * does not own. Thread-safe.
 */
final class GssServerContext {

    /** Back handles whose callback sequence is kept (a client offers one or two per session). */
    private static final int MAX_BACK_HANDLES = 16;

    final Handle handle;
    final Object peer;
    final GSSContext gss;
    private final SequenceWindow window;
    /** Whether {@link #dispose} ends {@link #gss} too (false: another owner disposes it). */
    private final boolean ownsGss;
    private volatile boolean disposed;
    /** The sequence of callbacks made on this context, per back handle (RFC 5661 §2.10.8.2); a few at most. */
    private final java.util.Map<Handle, java.util.concurrent.atomic.AtomicInteger> backSequences =
            new java.util.LinkedHashMap<>(4, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(java.util.Map.Entry<Handle, java.util.concurrent.atomic.AtomicInteger> e) {
                    return size() > MAX_BACK_HANDLES;
                }
            };
    /** Set once established. */
    private volatile String principal;
    private volatile Object identity;
    /** System.nanoTime-style deadline (set once established). */
    private volatile long expiresAt;

    GssServerContext(Handle handle, Object peer, GSSContext gss, int window) {
        this(handle, peer, gss, window, true);
    }

    GssServerContext(Handle handle, Object peer, GSSContext gss, int window, boolean ownsGss) {
        this.handle = handle;
        this.peer = peer;
        this.gss = gss;
        this.window = new SequenceWindow(window);
        this.ownsGss = ownsGss;
    }

    void established(String principal, Object identity, long expiresAt) {
        this.principal = principal;
        this.identity = identity;
        this.expiresAt = expiresAt;
    }

    boolean isEstablished() {
        return principal != null;
    }

    String principal() {
        return principal;
    }

    Object identity() {
        return identity;
    }

    /** Whether the context may no longer be used: its lifetime is over, or it was disposed. */
    boolean isExpired(long now) {
        return disposed || now - expiresAt >= 0;
    }

    int windowSize() {
        return window.size();
    }

    /** RFC 2203 §5.3.3.1: whether {@code seq} is new and within the window (then it is recorded). */
    boolean acceptSequence(int seq) {
        synchronized (window) {
            return window.accept(Integer.toUnsignedLong(seq));
        }
    }

    /** The callback sequence of {@code backHandle} on this context. */
    java.util.concurrent.atomic.AtomicInteger backSequence(byte[] backHandle) {
        synchronized (backSequences) {
            return backSequences.computeIfAbsent(new Handle(backHandle.clone()),
                    h -> new java.util.concurrent.atomic.AtomicInteger());
        }
    }

    void dispose() {
        disposed = true;
        if (!ownsGss) {
            return;
        }
        try {
            synchronized (gss) {
                gss.dispose();
            }
        } catch (GSSException e) {
            // Nothing left to release: the context is gone either way.
        }
    }

    @Override
    public String toString() {
        return "GssContext(" + handle + ", " + (principal != null ? principal : "establishing") + ", peer=" + peer
                + ')';
    }

    /** A context handle: opaque bytes the server made (8 random bytes), with value equality. */
    static final class Handle {
        final byte[] bytes;
        private final int hash;

        Handle(byte[] bytes) {
            this.bytes = bytes;
            this.hash = java.util.Arrays.hashCode(bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Handle && java.util.Arrays.equals(((Handle) o).bytes, bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("handle=");
            for (byte b : bytes) {
                sb.append(Character.forDigit((b >> 4) & 15, 16)).append(Character.forDigit(b & 15, 16));
            }
            return sb.toString();
        }
    }
}
