package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.fabric.CompletionArray;
import dev.rpcrdma.channel.fabric.WcFlags;
import dev.rpcrdma.channel.verbs.WorkCompletions;

/** Flyweight over a native {@code ibv_wc} array; normalises the device's Send-With-Invalidate flag. */
final class NativeCompletionArray implements CompletionArray {
    final WorkCompletions wcs;

    NativeCompletionArray(WorkCompletions wcs) {
        this.wcs = wcs;
    }

    @Override
    public int capacity() {
        return wcs.capacity();
    }

    @Override
    public long wrId(int i) {
        return wcs.wrId(i);
    }

    @Override
    public int status(int i) {
        return wcs.status(i);
    }

    @Override
    public int opcode(int i) {
        return wcs.opcode(i);
    }

    @Override
    public int byteLength(int i) {
        return wcs.byteLen(i);
    }

    @Override
    public int flags(int i) {
        return (wcs.withInvalidate(i) ? WcFlags.WITH_INV : 0) | (wcs.withImm(i) ? WcFlags.WITH_IMM : 0);
    }

    @Override
    public int invalidatedRkey(int i) {
        return wcs.invalidatedRkey(i);
    }

    @Override
    public int qpNum(int i) {
        return wcs.qpNum(i);
    }

    @Override
    public int vendorError(int i) {
        return wcs.vendorErr(i);
    }
}
