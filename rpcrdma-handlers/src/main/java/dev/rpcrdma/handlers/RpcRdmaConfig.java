package dev.rpcrdma.handlers;

import dev.rpcrdma.handlers.header.RpcRdmaLimits;
import dev.rpcrdma.handlers.negotiation.RpcRdmaPrivateData;
import io.netty.util.internal.ObjectUtil;

/**
 * Settings of one side of an RPC-over-RDMA Version 1 connection. Immutable; {@code with*} methods return copies.
 *
 * <ul>
 *   <li>inline sizes: what this side advertises in its RFC 8797 private data (send and receive size, 1 KiB..256 KiB
 *       in 1 KiB steps) and sizes its receive buffers and send slots to;</li>
 *   <li>remote invalidation: the R bit (RFC 8797 §4.1);</li>
 *   <li>credits: what a requester asks for ({@code rdma_credit} of its calls) and the bounds within which a
 *       responder adapts its grant (RFC 8166 §3.3.1);</li>
 *   <li>header bounds ({@link RpcRdmaLimits}) and the largest RPC message reassembled from chunks.</li>
 * </ul>
 */
public final class RpcRdmaConfig {

    /** Linux's defaults: 4 KiB inline both ways, remote invalidation, 128 requested credits, grants 1..64. */
    public static final RpcRdmaConfig DEFAULT = new RpcRdmaConfig(4096, 4096, true, 128, 1, 64,
            RpcRdmaLimits.DEFAULT, 4 << 20, 16);

    private final int sendSize;
    private final int receiveSize;
    private final boolean remoteInvalidation;
    private final int maxRequests;
    private final int minGrant;
    private final int maxGrant;
    private final RpcRdmaLimits limits;
    private final int maxMessageSize;
    private final int backwardCredits;

    private RpcRdmaConfig(int sendSize, int receiveSize, boolean remoteInvalidation, int maxRequests, int minGrant,
                          int maxGrant, RpcRdmaLimits limits, int maxMessageSize, int backwardCredits) {
        this.sendSize = ObjectUtil.checkInRange(sendSize, RpcRdmaPrivateData.MIN_INLINE_SIZE,
                RpcRdmaPrivateData.MAX_INLINE_SIZE, "sendSize") & ~1023;
        this.receiveSize = ObjectUtil.checkInRange(receiveSize, RpcRdmaPrivateData.MIN_INLINE_SIZE,
                RpcRdmaPrivateData.MAX_INLINE_SIZE, "receiveSize") & ~1023;
        this.remoteInvalidation = remoteInvalidation;
        this.maxRequests = ObjectUtil.checkPositive(maxRequests, "maxRequests");
        this.minGrant = ObjectUtil.checkPositive(minGrant, "minGrant");
        this.maxGrant = ObjectUtil.checkPositive(maxGrant, "maxGrant");
        if (minGrant > maxGrant) {
            throw new IllegalArgumentException("minGrant " + minGrant + " > maxGrant " + maxGrant);
        }
        this.limits = ObjectUtil.checkNotNull(limits, "limits");
        this.maxMessageSize = ObjectUtil.checkPositive(maxMessageSize, "maxMessageSize");
        this.backwardCredits = ObjectUtil.checkInRange(backwardCredits, 1, 256, "backwardCredits");
    }

    /** With these inline sizes (RFC 8797 §4.2; rounded down to 1 KiB). */
    public RpcRdmaConfig withInlineSizes(int sendSize, int receiveSize) {
        return new RpcRdmaConfig(sendSize, receiveSize, remoteInvalidation, maxRequests, minGrant, maxGrant, limits,
                maxMessageSize, backwardCredits);
    }

    /** With or without the R bit (RFC 8797 §4.1). */
    public RpcRdmaConfig withRemoteInvalidation(boolean on) {
        return new RpcRdmaConfig(sendSize, receiveSize, on, maxRequests, minGrant, maxGrant, limits, maxMessageSize,
                backwardCredits);
    }

    /** Requester: the credits it asks for and never exceeds. */
    public RpcRdmaConfig withMaxRequests(int maxRequests) {
        return new RpcRdmaConfig(sendSize, receiveSize, remoteInvalidation, maxRequests, minGrant, maxGrant, limits,
                maxMessageSize, backwardCredits);
    }

    /** Responder: bounds of the credit grant. */
    public RpcRdmaConfig withGrantBounds(int minGrant, int maxGrant) {
        return new RpcRdmaConfig(sendSize, receiveSize, remoteInvalidation, maxRequests, minGrant, maxGrant, limits,
                maxMessageSize, backwardCredits);
    }

    /** With these header bounds and largest reassembled RPC message. */
    public RpcRdmaConfig withLimits(RpcRdmaLimits limits, int maxMessageSize) {
        return new RpcRdmaConfig(sendSize, receiveSize, remoteInvalidation, maxRequests, minGrant, maxGrant, limits,
                maxMessageSize, backwardCredits);
    }

    /**
     * Backchannel (RFC 8167): the backward credits a client grants (and the receives it keeps posted for backward
     * calls beyond the forward ones), and the receives a server reserves for backward replies (its most backward
     * calls at once). Linux's client grants 16 (and tolerates 32).
     */
    public RpcRdmaConfig withBackwardCredits(int backwardCredits) {
        return new RpcRdmaConfig(sendSize, receiveSize, remoteInvalidation, maxRequests, minGrant, maxGrant, limits,
                maxMessageSize, backwardCredits);
    }

    /** See {@link #withBackwardCredits(int)}; default 16. */
    public int backwardCredits() {
        return backwardCredits;
    }

    public int sendSize() {
        return sendSize;
    }

    public int receiveSize() {
        return receiveSize;
    }

    public boolean remoteInvalidation() {
        return remoteInvalidation;
    }

    public int maxRequests() {
        return maxRequests;
    }

    public int minGrant() {
        return minGrant;
    }

    public int maxGrant() {
        return maxGrant;
    }

    public RpcRdmaLimits limits() {
        return limits;
    }

    /** Largest RPC message (inline part plus chunks) accepted from a peer. */
    public int maxMessageSize() {
        return maxMessageSize;
    }

    /** The private data this side advertises, capped by what the connection really provides. */
    public RpcRdmaPrivateData privateData(int maxSend, int receiveBuffer) {
        return RpcRdmaPrivateData.of(remoteInvalidation, Math.min(sendSize, maxSend),
                Math.min(receiveSize, receiveBuffer));
    }

    @Override
    public String toString() {
        return "RpcRdmaConfig(send=" + sendSize + ", receive=" + receiveSize + ", R=" + remoteInvalidation
                + ", maxRequests=" + maxRequests + ", grant=" + minGrant + ".." + maxGrant + ')';
    }
}
