package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.AccessFlags;
import dev.rpcrdma.channel.fabric.FabricException;
import dev.rpcrdma.channel.fabric.MemoryRegion;
import dev.rpcrdma.channel.fabric.MemoryWindow;
import dev.rpcrdma.channel.fabric.ProtectionDomain;
import dev.rpcrdma.channel.fabric.SharedReceiveQueue;

import java.io.IOException;

/** Protection domain; counts the objects that use it so that dealloc fails with EBUSY like ibv_dealloc_pd. */
final class SoftProtectionDomain implements ProtectionDomain {
    final SoftwareFabric fabric;
    int users;
    private boolean closed;

    SoftProtectionDomain(SoftwareFabric fabric) {
        this.fabric = fabric;
        fabric.count("pd", 1);
    }

    @Override
    public MemoryRegion registerMemory(long address, long length, int access) throws IOException {
        if (address == 0 || length <= 0) {
            throw new FabricException("ibv_reg_mr: bad address/length", FabricException.EINVAL);
        }
        // IB rule: remote write (and atomic) access requires local write access.
        if ((access & (AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC)) != 0
                && (access & AccessFlags.LOCAL_WRITE) == 0) {
            throw new FabricException("ibv_reg_mr: REMOTE_WRITE without LOCAL_WRITE", FabricException.EINVAL);
        }
        synchronized (fabric.lock) {
            checkOpen();
            SoftMemoryRegion mr = new SoftMemoryRegion(this, address, length, access);
            mr.key = fabric.allocateKey(mr);
            users++;
            return mr;
        }
    }

    @Override
    public MemoryWindow allocMemoryWindow() throws IOException {
        if (fabric.likeSiw) {
            // rdma-core's ibv_alloc_mw where the provider has no alloc_mw (siw): NULL, errno EOPNOTSUPP.
            throw new FabricException("ibv_alloc_mw: the device has no memory windows", FabricException.EOPNOTSUPP);
        }
        synchronized (fabric.lock) {
            checkOpen();
            SoftMemoryWindow mw = new SoftMemoryWindow(this);
            mw.rkey = fabric.allocateKey(mw);
            users++;
            return mw;
        }
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(int maxWr) throws IOException {
        if (maxWr <= 0 || maxWr > SoftDevice.MAX_QP_WR) {
            throw new FabricException("ibv_create_srq: max_wr " + maxWr + " out of range", FabricException.EINVAL);
        }
        synchronized (fabric.lock) {
            checkOpen();
            SoftSharedReceiveQueue srq = new SoftSharedReceiveQueue(fabric, this, maxWr);
            users++;
            return srq;
        }
    }

    private void checkOpen() throws FabricException {
        if (closed) {
            throw new FabricException("protection domain deallocated", FabricException.EINVAL);
        }
    }

    @Override
    public void close() throws IOException {
        synchronized (fabric.lock) {
            if (closed) {
                return;
            }
            if (users > 0) {
                throw new FabricException("ibv_dealloc_pd: " + users + " objects still use it", FabricException.EBUSY);
            }
            closed = true;
            fabric.count("pd", -1);
        }
    }
}
