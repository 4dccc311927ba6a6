package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.verbs.NativeCallException;
import dev.rpcrdma.channel.fabric.MemoryRegion;
import dev.rpcrdma.channel.verbs.Verbs;

import java.io.IOException;

/** {@code ibv_mr}. */
final class NativeMemoryRegion implements MemoryRegion {
    final long mr;
    private final int access;
    private final long address;
    private final long length;
    private final int lkey;
    private final int rkey;
    private boolean closed;

    NativeMemoryRegion(long mr, int access) {
        this.mr = mr;
        this.access = access;
        this.address = Verbs.mrAddr(mr);
        this.length = Verbs.mrLength(mr);
        this.lkey = Verbs.mrLkey(mr);
        this.rkey = Verbs.mrRkey(mr);
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
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public void close() throws IOException {
        if (!closed) {
            try {
                Verbs.deregMr(mr);
            } catch (NativeCallException e) {
                throw NativeErrors.of(e);
            }
            closed = true;
        }
    }
}
