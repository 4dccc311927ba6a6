package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.AccessFlags;

/**
 * Access rights of registered memory and of memory-window bindings ({@code enum ibv_access_flags}), for
 * {@link RdmaConnection#registerMemory} and {@link RdmaBindWindow}. {@link #LOCAL_WRITE} is always added on
 * registration.
 */
public final class RdmaAccess {
    /** The device may write the memory (receives, RDMA Read targets). */
    public static final int LOCAL_WRITE = AccessFlags.LOCAL_WRITE;
    /** The peer may RDMA Write into the memory (a Write or Reply chunk, RFC 8166 §3.4.6). */
    public static final int REMOTE_WRITE = AccessFlags.REMOTE_WRITE;
    /** The peer may RDMA Read the memory (a Read chunk, RFC 8166 §3.4.5). */
    public static final int REMOTE_READ = AccessFlags.REMOTE_READ;
    /** Memory windows may be bound over the region. */
    public static final int MW_BIND = AccessFlags.MW_BIND;

    private RdmaAccess() {
    }
}
