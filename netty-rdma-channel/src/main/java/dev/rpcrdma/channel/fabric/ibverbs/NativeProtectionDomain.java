package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.fabric.MemoryRegion;
import dev.rpcrdma.channel.fabric.MemoryWindow;
import dev.rpcrdma.channel.fabric.ProtectionDomain;
import dev.rpcrdma.channel.verbs.IbvConstants;
import dev.rpcrdma.channel.verbs.Verbs;

import java.io.IOException;

/** {@code ibv_pd}. */
final class NativeProtectionDomain implements ProtectionDomain {
    final long pd;
    private boolean closed;

    NativeProtectionDomain(long pd) {
        this.pd = pd;
    }

    @Override
    public MemoryRegion registerMemory(long address, long length, int access) throws IOException {
        return new NativeMemoryRegion(Verbs.regMr(pd, address, length, access), access);
    }

    @Override
    public MemoryWindow allocMemoryWindow() throws IOException {
        return new NativeMemoryWindow(Verbs.allocMw(pd, IbvConstants.IBV_MW_TYPE_2));
    }

    @Override
    public void close() throws IOException {
        if (!closed) {
            Verbs.deallocPd(pd);
            closed = true;
        }
    }
}
