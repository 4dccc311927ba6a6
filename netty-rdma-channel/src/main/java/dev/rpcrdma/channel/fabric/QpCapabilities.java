package dev.rpcrdma.channel.fabric;

/** {@code struct ibv_qp_cap}: queue depths, SGE counts and inline size requested or granted. */
public final class QpCapabilities {
    public final int maxSendWr;
    public final int maxRecvWr;
    public final int maxSendSge;
    public final int maxRecvSge;
    public final int maxInlineData;

    public QpCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
        this.maxSendWr = maxSendWr;
        this.maxRecvWr = maxRecvWr;
        this.maxSendSge = maxSendSge;
        this.maxRecvSge = maxRecvSge;
        this.maxInlineData = maxInlineData;
    }

    @Override
    public String toString() {
        return "QpCapabilities(sendWr=" + maxSendWr + ", recvWr=" + maxRecvWr + ", sendSge=" + maxSendSge
                + ", recvSge=" + maxRecvSge + ", inline=" + maxInlineData + ')';
    }
}
