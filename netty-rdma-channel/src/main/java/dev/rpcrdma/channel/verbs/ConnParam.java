package dev.rpcrdma.channel.verbs;

import java.util.Objects;

/**
 * {@code struct rdma_conn_param} for {@link RdmaCm#connect} and {@link RdmaCm#accept}. {@code responderResources}
 * (RDMA READs the peer may have outstanding against us) and {@code initiatorDepth} (RDMA READs we may have
 * outstanding) default to 0xFF, which librdmacm replaces by the device maximum.
 */
public record ConnParam(byte[] privateData, int responderResources, int initiatorDepth, int retryCount,
                                   int rnrRetryCount) {
    /** librdmacm: use the device maximum ({@code RDMA_MAX_RESP_RES} / {@code RDMA_MAX_INIT_DEPTH}). */
    public static final int DEVICE_MAX = 0xFF;

    public ConnParam {
        Objects.requireNonNull(privateData, "privateData");
        if (privateData.length > 255) {
            throw new IllegalArgumentException("private data: " + privateData.length + " bytes (max 255)");
        }
        checkByte("responderResources", responderResources);
        checkByte("initiatorDepth", initiatorDepth);
        if (retryCount < 0 || retryCount > 7 || rnrRetryCount < 0 || rnrRetryCount > 7) {
            throw new IllegalArgumentException("retry counts are 3-bit: " + retryCount + ", " + rnrRetryCount);
        }
    }

    /** {@code privateData} with device-maximum READ depths, retry count 7 and RNR retry 7 (retry forever). */
    public static ConnParam of(byte[] privateData) {
        return new ConnParam(privateData, DEVICE_MAX, DEVICE_MAX, 7, 7);
    }

    private static void checkByte(String name, int value) {
        if (value < 0 || value > 0xFF) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: 0..255)");
        }
    }
}
