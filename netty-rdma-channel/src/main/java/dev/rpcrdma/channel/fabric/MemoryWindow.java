package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/**
 * A type-2 memory window ({@code ibv_mw}). It is bound to a range of a {@link MemoryRegion} registered with
 * {@link AccessFlags#MW_BIND} by a {@link WrOpcode#BIND_MW} work request on a queue pair; the binding is usable only
 * through that queue pair and can be invalidated remotely by the peer's {@link WrOpcode#SEND_WITH_INV}.
 * Local invalidation is a {@link WrOpcode#LOCAL_INV} work request naming the binding's rkey (the window can then be
 * bound again); where {@link VerbsDevice#localInvalidateSupported()} is false the window is closed (deallocated)
 * instead and a fresh one allocated.
 */
public interface MemoryWindow extends AutoCloseable {

    /** The rkey of the current (or last) binding; {@link #nextRkey()} is what the next bind should use. */
    int rkey();

    /** {@code ibv_inc_rkey(rkey())}: same index, next 8-bit key. */
    default int nextRkey() {
        int rkey = rkey();
        return (rkey & 0xffffff00) | ((rkey + 1) & 0xff);
    }

    /** {@code ibv_dealloc_mw}: invalidates any binding. */
    @Override
    void close() throws IOException;
}
