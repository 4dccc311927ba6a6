package dev.rpcrdma.channel.fabric;

/** {@code enum ibv_access_flags} bits. */
public final class AccessFlags {
    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 1 << 1;
    public static final int REMOTE_READ = 1 << 2;
    public static final int REMOTE_ATOMIC = 1 << 3;
    public static final int MW_BIND = 1 << 4;

    private AccessFlags() {
    }
}
