package dev.rpcrdma.channel;

import java.net.ConnectException;

/** The peer rejected the connection ({@code RDMA_CM_EVENT_REJECTED}); carries its reject private data. */
public final class RdmaConnectionRejectedException extends ConnectException {
    private static final long serialVersionUID = 1L;
    private final int reason;
    private final byte[] privateData;

    public RdmaConnectionRejectedException(String message, int reason, byte[] privateData) {
        super(message);
        this.reason = reason;
        this.privateData = privateData.clone();
    }

    /** The IB CM reject reason (28 = consumer defined, i.e. the peer called reject). */
    public int reason() {
        return reason;
    }

    /** The reject private data (up to 148 bytes, zero padded). */
    public byte[] privateData() {
        return privateData.clone();
    }
}
