package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.FabricException;
import dev.rpcrdma.channel.fabric.MemoryRegion;

import java.io.IOException;

/** Memory region; lkey and rkey are the same key (as in rxe). */
final class SoftMemoryRegion implements MemoryRegion {
    final SoftProtectionDomain pd;
    final long address;
    final long length;
    final int access;
    int key;
    int boundWindows;
    boolean closed;
    /** A Send With Invalidate named its key (siw): it no longer works, locally or remotely, until deregistered. */
    boolean invalidated;

    SoftMemoryRegion(SoftProtectionDomain pd, long address, long length, int access) {
        this.pd = pd;
        this.address = address;
        this.length = length;
        this.access = access;
        pd.fabric.count("mr", 1);
    }

    boolean contains(long addr, long len) {
        return len >= 0 && addr >= address && addr - address <= length - len;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public int lkey() {
        return key;
    }

    @Override
    public int rkey() {
        return key;
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public void close() throws IOException {
        synchronized (pd.fabric.lock) {
            if (closed) {
                return;
            }
            if (boundWindows > 0) {
                // IBA 10.6.7.2.6: a region with bound windows cannot be deregistered; rxe refuses with EINVAL.
                throw new FabricException("ibv_dereg_mr: " + boundWindows + " memory windows bound",
                        FabricException.EINVAL);
            }
            closed = true;
            pd.fabric.count("mr", -1);
            pd.fabric.releaseKey(key);
            pd.users--;
        }
    }

    @Override
    public String toString() {
        return "SoftMemoryRegion(key=0x" + Integer.toHexString(key) + ", len=" + length + ')';
    }
}
