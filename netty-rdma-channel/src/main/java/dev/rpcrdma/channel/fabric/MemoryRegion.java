package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/** A registered memory region ({@code ibv_mr}). */
public interface MemoryRegion extends AutoCloseable {

    /** First registered address. */
    long address();

    /** Registered length in bytes. */
    long length();

    /** Local key, used in scatter/gather elements of this domain's work requests. */
    int lkey();

    /** Remote key, valid for peer access when registered with a remote access flag. */
    int rkey();

    /** The {@link AccessFlags} given at registration. */
    int access();

    /**
     * {@code ibv_dereg_mr}: both keys stop working at once. The caller ensures no work request uses it. Fails with
     * EINVAL while memory windows are bound to it (IBA 10.6.7.2.6).
     */
    @Override
    void close() throws IOException;
}
