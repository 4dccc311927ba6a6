package dev.rpcrdma.channel.verbs;

/**
 * {@code struct ibv_qp_cap}: the queue depths and SGE counts asked of {@link RdmaCm#createQp} and, as returned by
 * it, those the device actually granted (which may be larger). {@code maxRecvWr} and {@code maxRecvSge} are both 0
 * for a queue pair on a shared receive queue.
 */
public record QpCap(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
    public QpCap {
        // A queue pair on a shared receive queue has no receive queue of its own: 0 receives (and SGEs).
        if (maxSendWr <= 0 || maxSendSge <= 0 || maxInlineData < 0 || maxRecvWr < 0 || maxRecvSge < 0
                || maxRecvWr > 0 && maxRecvSge == 0) {
            throw new IllegalArgumentException("invalid capabilities: " + maxSendWr + "/" + maxRecvWr + "/"
                    + maxSendSge + "/" + maxRecvSge + "/" + maxInlineData);
        }
    }
}
