package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.verbs.NativeCallException;
import dev.rpcrdma.channel.fabric.MemoryRegion;
import dev.rpcrdma.channel.fabric.MemoryWindow;
import dev.rpcrdma.channel.fabric.ProtectionDomain;
import dev.rpcrdma.channel.fabric.SharedReceiveQueue;
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
        try {
            return new NativeMemoryRegion(Verbs.regMr(pd, address, length, access), access);
        } catch (NativeCallException e) {
            throw NativeErrors.of(e);
        }
    }

    @Override
    public MemoryWindow allocMemoryWindow() throws IOException {
        try {
            return new NativeMemoryWindow(Verbs.allocMw(pd, IbvConstants.IBV_MW_TYPE_2));
        } catch (NativeCallException e) {
            throw NativeErrors.of(e);
        }
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(int maxWr) throws IOException {
        try {
            int[] granted = new int[1];
            long srq = Verbs.createSrq(pd, maxWr, 1, granted);
            return new NativeSharedReceiveQueue(srq, granted[0]);
        } catch (NativeCallException e) {
            throw NativeErrors.of(e);
        }
    }

    @Override
    public void close() throws IOException {
        if (!closed) {
            try {
                Verbs.deallocPd(pd);
            } catch (NativeCallException e) {
                throw NativeErrors.of(e);
            }
            closed = true;
        }
    }
}
