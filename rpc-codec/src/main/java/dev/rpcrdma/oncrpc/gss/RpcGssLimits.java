package dev.rpcrdma.oncrpc.gss;

import io.netty.util.internal.ObjectUtil;

import java.time.Duration;

/**
 * Bounds of an {@link RpcGssAuthenticator}: the sequence window it offers (RFC 2203 §5.2.3.1), the largest INIT
 * token accepted, the contexts kept in total and per peer address (past either, the least recently used context
 * of the scope goes first), and the longest a context lives (never longer than its GSS lifetime). Immutable.
 */
public final class RpcGssLimits {

    /** Window 128, INIT tokens up to 64 KiB, 4096 contexts, 64 per peer, 8 hours. */
    public static final RpcGssLimits DEFAULT = new RpcGssLimits(128, 64 * 1024, 4096, 64, Duration.ofHours(8));

    private final int window;
    private final int maxInitToken;
    private final int maxContexts;
    private final int maxContextsPerPeer;
    private final Duration maxLifetime;

    private RpcGssLimits(int window, int maxInitToken, int maxContexts, int maxContextsPerPeer,
                         Duration maxLifetime) {
        this.window = ObjectUtil.checkPositive(window, "window");
        this.maxInitToken = ObjectUtil.checkPositive(maxInitToken, "maxInitToken");
        this.maxContexts = ObjectUtil.checkPositive(maxContexts, "maxContexts");
        this.maxContextsPerPeer = ObjectUtil.checkPositive(maxContextsPerPeer, "maxContextsPerPeer");
        this.maxLifetime = ObjectUtil.checkNotNull(maxLifetime, "maxLifetime");
        if (maxLifetime.isNegative() || maxLifetime.isZero()) {
            throw new IllegalArgumentException("maxLifetime must be positive: " + maxLifetime);
        }
    }

    /** With a sequence window of {@code window} requests (at least the calls a client keeps in flight). */
    public RpcGssLimits withWindow(int window) {
        return new RpcGssLimits(window, maxInitToken, maxContexts, maxContextsPerPeer, maxLifetime);
    }

    /** With INIT / CONTINUE_INIT tokens up to {@code bytes} (larger ones are refused before they are read). */
    public RpcGssLimits withMaxInitToken(int bytes) {
        return new RpcGssLimits(window, bytes, maxContexts, maxContextsPerPeer, maxLifetime);
    }

    /** With at most {@code total} contexts, {@code perPeer} of them from one peer address. */
    public RpcGssLimits withMaxContexts(int total, int perPeer) {
        return new RpcGssLimits(window, maxInitToken, total, perPeer, maxLifetime);
    }

    /** With contexts living at most {@code lifetime}. */
    public RpcGssLimits withMaxLifetime(Duration lifetime) {
        return new RpcGssLimits(window, maxInitToken, maxContexts, maxContextsPerPeer, lifetime);
    }

    /** The sequence window offered. */
    public int window() {
        return window;
    }

    /** The largest INIT / CONTINUE_INIT token accepted, in bytes. */
    public int maxInitToken() {
        return maxInitToken;
    }

    /** The most contexts kept in total. */
    public int maxContexts() {
        return maxContexts;
    }

    /** The most contexts kept per peer address. */
    public int maxContextsPerPeer() {
        return maxContextsPerPeer;
    }

    /** The longest a context lives (never past its GSS lifetime). */
    public Duration maxLifetime() {
        return maxLifetime;
    }

    @Override
    public String toString() {
        return "RpcGssLimits(window=" + window + ", maxInitToken=" + maxInitToken + ", maxContexts=" + maxContexts
                + ", maxContextsPerPeer=" + maxContextsPerPeer + ", maxLifetime=" + maxLifetime + ')';
    }
}
