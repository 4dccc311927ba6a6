package dev.rpcrdma.handlers.negotiation;

import static java.util.Objects.requireNonNull;

/**
 * The two inline thresholds of a connection (RFC 8166 §3.3.2) as negotiated with CM private data (RFC 8797 §4.2):
 * each direction uses the smaller of the sender's send size and the receiver's receive size; remote invalidation
 * is usable only when both peers set the R bit (RFC 8797 §4.1).
 *
 * @param sendThreshold      the largest RPC-over-RDMA message this side may Send
 * @param receiveThreshold   the largest message the peer may Send to this side (our receive buffers hold it)
 * @param remoteInvalidation both peers set the R bit
 */
public record InlineThresholds(int sendThreshold, int receiveThreshold, boolean remoteInvalidation) {

    /** RFC 8166 §3.3.3 defaults for a peer that negotiated nothing. */
    public static final InlineThresholds DEFAULTS = new InlineThresholds(RpcRdmaPrivateData.MIN_INLINE_SIZE,
            RpcRdmaPrivateData.MIN_INLINE_SIZE, false);

    /**
     * Thresholds for a connection where this side advertised {@code local} and received {@code peer}
     * (use {@link RpcRdmaPrivateData#DEFAULTS} for a peer that sent nothing recognisable).
     */
    public static InlineThresholds negotiate(RpcRdmaPrivateData local, RpcRdmaPrivateData peer) {
        requireNonNull(local, "local");
        requireNonNull(peer, "peer");
        return new InlineThresholds(
                Math.min(local.sendSize(), peer.receiveSize()),
                Math.min(peer.sendSize(), local.receiveSize()),
                local.remoteInvalidation() && peer.remoteInvalidation());
    }
}
