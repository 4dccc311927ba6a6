package dev.rpcrdma.oncrpc.gss;

import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSException;

/**
 * One RPCSEC_GSS context on the server (RFC 2203 §5.2.3.1): its handle, the accepting {@link GSSContext}, the
 * sequence window and, once established, the principal and the identity mapped from it. Thread-safe.
 */
final class GssServerContext {

    final Handle handle;
    final Object peer;
    final GSSContext gss;
    private final SequenceWindow window;
    /** Set once established. */
    private volatile String principal;
    private volatile Object identity;
    /** System.nanoTime-style deadline (set once established). */
    private volatile long expiresAt;

    GssServerContext(Handle handle, Object peer, GSSContext gss, int window) {
        this.handle = handle;
        this.peer = peer;
        this.gss = gss;
        this.window = new SequenceWindow(window);
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

    boolean isExpired(long now) {
        return now - expiresAt >= 0;
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

    void dispose() {
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
