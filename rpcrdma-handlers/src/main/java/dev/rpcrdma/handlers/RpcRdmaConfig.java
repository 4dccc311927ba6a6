package dev.rpcrdma.handlers;

import dev.rpcrdma.handlers.header.RpcRdmaLimits;
import dev.rpcrdma.handlers.negotiation.RpcRdmaPrivateData;
import io.netty.util.internal.ObjectUtil;

/**
 * Settings of one side of an RPC-over-RDMA Version 1 connection: inline sizes and the R bit it advertises
 * (RFC 8797), credits, header and message bounds, the requester's largest reply, the backchannel's credits.
 * Immutable; {@code with*} methods return copies.
 */
public final class RpcRdmaConfig {

    /** The default {@link #maxReplySize()}: 1 MiB. */
    public static final int DEFAULT_MAX_REPLY_SIZE = 1 << 20;

    /** Linux's defaults: 4 KiB inline both ways, remote invalidation, 128 requested credits, grants 1..64. */
    public static final RpcRdmaConfig DEFAULT = new RpcRdmaConfig(4096, 4096, true, 128, 1, 64,
            RpcRdmaLimits.DEFAULT, 4 << 20, 16, DEFAULT_MAX_REPLY_SIZE);

    private final int sendSize;
    private final int receiveSize;
    private final boolean remoteInvalidation;
    private final int maxRequests;
    private final int minGrant;
    private final int maxGrant;
    private final RpcRdmaLimits limits;
    private final int maxMessageSize;
    private final int backwardCredits;
    private final int maxReplySize;

    private RpcRdmaConfig(int sendSize, int receiveSize, boolean remoteInvalidation, int maxRequests, int minGrant,
                          int maxGrant, RpcRdmaLimits limits, int maxMessageSize, int backwardCredits,
                          int maxReplySize) {
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
        this.maxReplySize = ObjectUtil.checkPositive(maxReplySize, "maxReplySize");
    }

    /**
     * Requester: the largest reply a call may receive when neither its {@code CallOptions.withMaxReplySize} nor its
     * procedure's declared maximum ({@code RpcProcedureSpec.maxReplySize}) says (RFC 8166 §3.5.4: the Reply chunk
     * is sized before the call is sent). Every such call offers a Reply chunk of this size, so a reply of any
     * size up to it arrives whatever it is (inline, in the Reply chunk, or through Write chunks) and the caller
     * reads it the same way. A larger reply fails the call with an {@link RpcRdmaErrorException} (ERR_CHUNK)
     * naming this setting. Memory cost: one buffer of this size allocated and registered for remote write per
     * outstanding call (up to {@link #maxRequests()} at once), released when the reply arrives; declare small
     * maxima on procedures with small replies to avoid it. Default {@value #DEFAULT_MAX_REPLY_SIZE} bytes.
     */
    public RpcRdmaConfig withMaxReplySize(int maxReplySize) {
        return new RpcRdmaConfig(sendSize, receiveSize, remoteInvalidation, maxRequests, minGrant, maxGrant, limits,
                maxMessageSize, backwardCredits, maxReplySize);
    }

    /** See {@link #withMaxReplySize(int)}. */
    public int maxReplySize() {
        return maxReplySize;
    }

    /** With these inline sizes (RFC 8797 §4.2; rounded down to 1 KiB). */
    public RpcRdmaConfig withInlineSizes(int sendSize, int receiveSize) {
        return new RpcRdmaConfig(sendSize, receiveSize, remoteInvalidation, maxRequests, minGrant, maxGrant, limits,
                maxMessageSize, backwardCredits, maxReplySize);
    }

    /** With or without the R bit (RFC 8797 §4.1). */
    public RpcRdmaConfig withRemoteInvalidation(boolean on) {
        return new RpcRdmaConfig(sendSize, receiveSize, on, maxRequests, minGrant, maxGrant, limits, maxMessageSize,
                backwardCredits, maxReplySize);
    }

    /** Requester: the credits it asks for and never exceeds. */
    public RpcRdmaConfig withMaxRequests(int maxRequests) {
        return new RpcRdmaConfig(sendSize, receiveSize, remoteInvalidation, maxRequests, minGrant, maxGrant, limits,
                maxMessageSize, backwardCredits, maxReplySize);
    }

    /** Responder: bounds of the credit grant. */
    public RpcRdmaConfig withGrantBounds(int minGrant, int maxGrant) {
        return new RpcRdmaConfig(sendSize, receiveSize, remoteInvalidation, maxRequests, minGrant, maxGrant, limits,
                maxMessageSize, backwardCredits, maxReplySize);
    }

    /** With these header bounds and largest reassembled RPC message. */
    public RpcRdmaConfig withLimits(RpcRdmaLimits limits, int maxMessageSize) {
        return new RpcRdmaConfig(sendSize, receiveSize, remoteInvalidation, maxRequests, minGrant, maxGrant, limits,
                maxMessageSize, backwardCredits, maxReplySize);
    }

    /**
     * Backchannel (RFC 8167): the backward credits a client grants (and the receives it keeps posted for backward
     * calls beyond the forward ones), and the receives a server reserves for backward replies (its most backward
     * calls at once). Linux's client grants 16 (and tolerates 32).
     */
    public RpcRdmaConfig withBackwardCredits(int backwardCredits) {
        return new RpcRdmaConfig(sendSize, receiveSize, remoteInvalidation, maxRequests, minGrant, maxGrant, limits,
                maxMessageSize, backwardCredits, maxReplySize);
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
                + ", maxRequests=" + maxRequests + ", grant=" + minGrant + ".." + maxGrant + ", maxReplySize="
                + maxReplySize + ')';
    }
}
