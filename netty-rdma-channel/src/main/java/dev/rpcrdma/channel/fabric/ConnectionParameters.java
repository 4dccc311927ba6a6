package dev.rpcrdma.channel.fabric;

/**
 * {@code struct rdma_conn_param}. Private data limits are those of RC over InfiniBand/RoCE once the rdma_cm header
 * is taken out: 56 bytes in a connect request (REQ), 196 in an accept (REP), 148 in a reject (REJ). Peers receive
 * the private data field at its full fixed size, zero padded, as IB CM delivers it.
 */
public final class ConnectionParameters {
    public static final int MAX_CONNECT_PRIVATE_DATA = 56;
    public static final int MAX_ACCEPT_PRIVATE_DATA = 196;
    public static final int MAX_REJECT_PRIVATE_DATA = 148;

    public final byte[] privateData;
    public final int responderResources;
    public final int initiatorDepth;
    public final int retryCount;
    public final int rnrRetryCount;

    public ConnectionParameters(byte[] privateData, int responderResources, int initiatorDepth, int retryCount,
                                int rnrRetryCount) {
        this.privateData = privateData == null ? new byte[0] : privateData.clone();
        this.responderResources = responderResources;
        this.initiatorDepth = initiatorDepth;
        this.retryCount = retryCount;
        this.rnrRetryCount = rnrRetryCount;
    }
}
