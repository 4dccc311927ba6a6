package dev.rpcrdma.oncrpc.client;

import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import io.netty.util.internal.ObjectUtil;

import java.time.Duration;

/**
 * Per-call options: credential, timeout and the two RPC-over-RDMA reply hints of {@link
 * dev.rpcrdma.oncrpc.message.RpcCall} (local only; TCP ignores them). Immutable; {@code with...} return copies.
 */
public final class CallOptions {

    /** AUTH_NONE, the client's default timeout, no hints. */
    public static final CallOptions DEFAULT = new CallOptions(OpaqueAuth.NONE, null, 0, 0);

    private final OpaqueAuth credential;
    private final Duration timeout;
    private final int maxDdpReplyItem;
    private final int maxReplySize;

    private CallOptions(OpaqueAuth credential, Duration timeout, int maxDdpReplyItem, int maxReplySize) {
        this.credential = credential;
        this.timeout = timeout;
        this.maxDdpReplyItem = maxDdpReplyItem;
        this.maxReplySize = maxReplySize;
    }

    /** With this credential (e.g. {@code new AuthSysCredential(...).toOpaqueAuth()}). */
    public CallOptions withCredential(OpaqueAuth credential) {
        return new CallOptions(ObjectUtil.checkNotNull(credential, "credential"), timeout, maxDdpReplyItem,
                maxReplySize);
    }

    /** With this timeout instead of the client's default. */
    public CallOptions withTimeout(Duration timeout) {
        ObjectUtil.checkNotNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        return new CallOptions(credential, timeout, maxDdpReplyItem, maxReplySize);
    }

    /** With the RDMA reply hints (largest DDP-eligible reply item, largest reply; 0 = none/unknown). */
    public CallOptions withReplyHints(int maxDdpReplyItem, int maxReplySize) {
        return new CallOptions(credential, timeout, ObjectUtil.checkPositiveOrZero(maxDdpReplyItem,
                "maxDdpReplyItem"), ObjectUtil.checkPositiveOrZero(maxReplySize, "maxReplySize"));
    }

    /** The credential. */
    public OpaqueAuth credential() {
        return credential;
    }

    /** The timeout, or null for the client's default. */
    public Duration timeout() {
        return timeout;
    }

    /** Hint: largest DDP-eligible item expected in the reply. */
    public int maxDdpReplyItem() {
        return maxDdpReplyItem;
    }

    /** Hint: largest expected reply. */
    public int maxReplySize() {
        return maxReplySize;
    }
}
