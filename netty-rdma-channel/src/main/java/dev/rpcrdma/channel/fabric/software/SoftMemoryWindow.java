package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.MemoryWindow;

import java.io.IOException;

/** Type-2 memory window: bound to one QP and one range of a region; invalidated remotely or by dealloc. */
final class SoftMemoryWindow implements MemoryWindow {
    final SoftProtectionDomain pd;
    int rkey;
    SoftMemoryRegion region;
    SoftQueuePair qp;
    long address;
    long length;
    int access;
    boolean closed;

    SoftMemoryWindow(SoftProtectionDomain pd) {
        this.pd = pd;
        pd.fabric.count("mw", 1);
    }

    boolean isBound() {
        return region != null;
    }

    /** Caller holds the fabric lock. */
    void bind(SoftQueuePair qp, int newRkey, SoftMemoryRegion region, long address, long length, int access) {
        unbind();
        this.rkey = newRkey;
        this.qp = qp;
        qp.boundWindows++;
        this.region = region;
        this.address = address;
        this.length = length;
        this.access = access;
        region.boundWindows++;
    }

    /** Invalidation; caller holds the fabric lock. */
    void unbind() {
        if (region != null) {
            region.boundWindows--;
            region = null;
            qp.windowUnbound();
            qp = null;
        }
    }

    boolean contains(long addr, long len) {
        return len >= 0 && addr >= address && addr - address <= length - len;
    }

    @Override
    public int rkey() {
        synchronized (pd.fabric.lock) {
            return rkey;
        }
    }

    @Override
    public void close() throws IOException {
        synchronized (pd.fabric.lock) {
            if (closed) {
                return;
            }
            closed = true;
            pd.fabric.count("mw", -1);
            unbind();
            pd.fabric.releaseKey(rkey);
            pd.users--;
        }
    }
}
