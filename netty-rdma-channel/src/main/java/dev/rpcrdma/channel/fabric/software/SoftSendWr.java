package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.SendFlags;
import dev.rpcrdma.channel.fabric.SendWorkRequest;
import io.netty.util.internal.PlatformDependent;

/** A posted send work request, copied at post time (inline data included, as the device does). */
final class SoftSendWr {
    final long wrId;
    final int opcode;
    final int flags;
    final long[] sgeAddress;
    final int[] sgeLength;
    final int[] sgeLkey;
    final byte[] inline;
    final long remoteAddress;
    final int rkey;
    final int invalidateRkey;
    final SoftMemoryWindow bindWindow;
    final SoftMemoryRegion bindRegion;
    final int bindNewRkey;
    final long bindAddress;
    final long bindLength;
    final int bindAccess;
    final long totalLength;
    int rnrAttempts;

    SoftSendWr(SendWorkRequest wr) {
        wrId = wr.wrId();
        opcode = wr.opcode();
        flags = wr.sendFlags();
        int n = wr.numSge();
        totalLength = wr.totalLength();
        if ((flags & SendFlags.INLINE) != 0) {
            inline = new byte[(int) totalLength];
            int off = 0;
            for (int i = 0; i < n; i++) {
                PlatformDependent.copyMemory(wr.sgeAddress(i), inline, off, wr.sgeLength(i));
                off += wr.sgeLength(i);
            }
            sgeAddress = null;
            sgeLength = null;
            sgeLkey = null;
        } else {
            inline = null;
            sgeAddress = new long[n];
            sgeLength = new int[n];
            sgeLkey = new int[n];
            for (int i = 0; i < n; i++) {
                sgeAddress[i] = wr.sgeAddress(i);
                sgeLength[i] = wr.sgeLength(i);
                sgeLkey[i] = wr.sgeLkey(i);
            }
        }
        remoteAddress = wr.remoteAddress();
        rkey = wr.rkey();
        invalidateRkey = wr.invalidateRkey();
        bindWindow = (SoftMemoryWindow) wr.bindWindow();
        bindRegion = (SoftMemoryRegion) wr.bindRegion();
        bindNewRkey = wr.bindNewRkey();
        bindAddress = wr.bindAddress();
        bindLength = wr.bindLength();
        bindAccess = wr.bindAccess();
    }

    boolean signaled() {
        return (flags & SendFlags.SIGNALED) != 0;
    }
}
