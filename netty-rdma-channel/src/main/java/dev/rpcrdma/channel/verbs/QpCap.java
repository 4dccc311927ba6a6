package dev.rpcrdma.channel.verbs;

/**
 * {@code struct ibv_qp_cap}: the queue depths and SGE counts asked of {@link RdmaCm#createQp} and, as returned by
 * it, those the device actually granted (which may be larger).
 */
public record QpCap(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
    public QpCap {
        if (maxSendWr <= 0 || maxRecvWr <= 0 || maxSendSge <= 0 || maxRecvSge <= 0 || maxInlineData < 0) {
            throw new IllegalArgumentException("invalid capabilities: " + maxSendWr + "/" + maxRecvWr + "/"
                    + maxSendSge + "/" + maxRecvSge + "/" + maxInlineData);
        }
    }
}
