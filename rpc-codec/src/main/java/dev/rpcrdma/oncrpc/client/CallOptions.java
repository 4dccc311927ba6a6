package dev.rpcrdma.oncrpc.client;

import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import io.netty.util.internal.ObjectUtil;

import java.time.Duration;
import java.util.Arrays;

/**
 * Per-call options: credential, timeout and the two RPC-over-RDMA reply hints of {@link
 * dev.rpcrdma.oncrpc.message.RpcCall} (local only; TCP ignores them). Immutable; {@code with...} return copies.
 */
public final class CallOptions {

    /** AUTH_NONE, the client's default timeout, no hints. */
    public static final CallOptions DEFAULT = new CallOptions(OpaqueAuth.NONE, null, new int[0], 0, null);

    /**
     * What NULL (procedure 0) calls use: {@link #DEFAULT} with a 512-byte maximum reply (an RPC reply header with
     * the largest verifier, RFC 5531 §8.2, and no results), so over RDMA they never offer a Reply chunk.
     */
    public static final CallOptions NULL_CALL = DEFAULT.withMaxReplySize(512);

    private final OpaqueAuth credential;
    private final Duration timeout;
    private final int[] replyDdpItems;
    private final int maxReplySize;
    private final RpcCallSecurity security;

    private CallOptions(OpaqueAuth credential, Duration timeout, int[] replyDdpItems, int maxReplySize,
                        RpcCallSecurity security) {
        this.credential = credential;
        this.timeout = timeout;
        this.replyDdpItems = replyDdpItems;
        this.maxReplySize = maxReplySize;
        this.security = security;
    }

    /**
     * With a security flavor that makes each call's credential, verifier and protected arguments and checks each
     * reply (e.g. an RPCSEC_GSS context: {@code RpcGssClientContext}); replaces {@link #withCredential}. Null: none.
     */
    public CallOptions withSecurity(RpcCallSecurity security) {
        return new CallOptions(credential, timeout, replyDdpItems, maxReplySize, security);
    }

    /** The security flavor, or null (the {@link #credential()} is sent as is, with an AUTH_NONE verifier). */
    public RpcCallSecurity security() {
        return security;
    }

    /** With this credential (e.g. {@code new AuthSysCredential(...).toOpaqueAuth()}). */
    public CallOptions withCredential(OpaqueAuth credential) {
        return new CallOptions(ObjectUtil.checkNotNull(credential, "credential"), timeout, replyDdpItems,
                maxReplySize, security);
    }

    /** With this timeout instead of the client's default. */
    public CallOptions withTimeout(Duration timeout) {
        ObjectUtil.checkNotNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        return new CallOptions(credential, timeout, replyDdpItems, maxReplySize, security);
    }

    /**
     * With the RDMA reply hints for a reply with at most one DDP-eligible item: its largest size and the largest
     * reply (0 = none / unknown). Replaces any {@link #withReplyDdpItems(int...)} hint.
     */
    public CallOptions withReplyHints(int maxDdpReplyItem, int maxReplySize) {
        ObjectUtil.checkPositiveOrZero(maxDdpReplyItem, "maxDdpReplyItem");
        return new CallOptions(credential, timeout, maxDdpReplyItem > 0 ? new int[] {maxDdpReplyItem} : new int[0],
                ObjectUtil.checkPositiveOrZero(maxReplySize, "maxReplySize"), security);
    }

    /**
     * With the RDMA hint for a reply with several DDP-eligible items (RFC 8166 §3.4.6, §4.3.2): {@code maxSizes[i]}
     * is the largest size of the i-th DDP-eligible result item, in XDR stream order; 0 asks for that item inline
     * (an empty Write chunk, RFC 8166 §4.3.2.3). No argument: no DDP-eligible item expected. Keeps the largest
     * reply size hint.
     */
    public CallOptions withReplyDdpItems(int... maxSizes) {
        ObjectUtil.checkNotNull(maxSizes, "maxSizes");
        int[] copy = maxSizes.clone();
        for (int i = 0; i < copy.length; i++) {
            ObjectUtil.checkPositiveOrZero(copy[i], "maxSizes[" + i + "]");
        }
        return new CallOptions(credential, timeout, copy, maxReplySize, security);
    }

    /** With the largest expected reply (0 = unknown), keeping the DDP-eligible item hints. */
    public CallOptions withMaxReplySize(int maxReplySize) {
        return new CallOptions(credential, timeout, replyDdpItems,
                ObjectUtil.checkPositiveOrZero(maxReplySize, "maxReplySize"), security);
    }

    /** The credential. */
    public OpaqueAuth credential() {
        return credential;
    }

    /** The timeout, or null for the client's default. */
    public Duration timeout() {
        return timeout;
    }

    /** Hint: largest DDP-eligible item expected in the reply (the largest of {@link #replyDdpItems()}, or 0). */
    public int maxDdpReplyItem() {
        return max(replyDdpItems);
    }

    /** Hint: the largest size of each DDP-eligible reply item, in stream order (a copy; empty if none). */
    public int[] replyDdpItems() {
        return replyDdpItems.clone();
    }

    /** The hint array itself (never modified: copied on the way in), for {@code RpcCall} to copy once. */
    int[] replyDdpItemsUnsafe() {
        return replyDdpItems;
    }

    static int max(int[] sizes) {
        int max = 0;
        for (int s : sizes) {
            max = Math.max(max, s);
        }
        return max;
    }

    @Override
    public String toString() {
        return "CallOptions(cred=" + credential + ", timeout=" + timeout + ", replyDdpItems="
                + Arrays.toString(replyDdpItems) + ", maxReplySize=" + maxReplySize
                + (security != null ? ", security=" + security : "") + ')';
    }

    /** Hint: largest expected reply. */
    public int maxReplySize() {
        return maxReplySize;
    }
}
