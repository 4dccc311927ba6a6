package dev.rpcrdma.channel.fabric;

/** {@code enum ibv_wc_flags} bits. */
public final class WcFlags {
    public static final int GRH = 1;
    public static final int WITH_IMM = 1 << 1;
    public static final int IP_CSUM_OK = 1 << 2;
    public static final int WITH_INV = 1 << 3;

    private WcFlags() {
    }
}
