package dev.rpcrdma.oncrpc.tcp;

import io.netty.util.internal.ObjectUtil;

/** Record-marking limits of a stream connection (RFC 5531 §11). Immutable. */
public final class TcpRpcConfig {

    /** Default largest accepted record: 1 MiB plus room for an RPC header. */
    public static final int DEFAULT_MAX_RECORD_SIZE = (1 << 20) + 4096;
    /** Default largest fragment written. */
    public static final int DEFAULT_MAX_FRAGMENT_SIZE = 1 << 20;
    /** Defaults. */
    public static final TcpRpcConfig DEFAULT = new TcpRpcConfig(DEFAULT_MAX_RECORD_SIZE, DEFAULT_MAX_FRAGMENT_SIZE);

    private final int maxRecordSize;
    private final int maxFragmentSize;

    /** Largest accepted record (sum of its fragments) and largest fragment written. */
    public TcpRpcConfig(int maxRecordSize, int maxFragmentSize) {
        this.maxRecordSize = ObjectUtil.checkPositive(maxRecordSize, "maxRecordSize");
        this.maxFragmentSize = ObjectUtil.checkInRange(maxFragmentSize, 1, Integer.MAX_VALUE >>> 1,
                "maxFragmentSize");
    }

    /** Largest accepted record. */
    public int maxRecordSize() {
        return maxRecordSize;
    }

    /** Largest fragment written. */
    public int maxFragmentSize() {
        return maxFragmentSize;
    }
}
