package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.SendFlags;
import dev.rpcrdma.channel.fabric.SendWorkRequest;
import io.netty.util.internal.PlatformDependent;

/**
 * A send queue entry: a posted send work request, copied at post time (inline data included, as the device does).
 * One per slot of the queue pair's send ring, reused: {@link #load} overwrites every field.
 */
final class SoftSendWr {
    long wrId;
    int opcode;
    int flags;
    int numSge;
    final long[] sgeAddress;
    final int[] sgeLength;
    final int[] sgeLkey;
    /** The inline bytes ({@code totalLength} of them) when {@link #isInline}; sized by the QP's max inline data. */
    final byte[] inline;
    boolean isInline;
    long remoteAddress;
    int rkey;
    int invalidateRkey;
    SoftMemoryWindow bindWindow;
    SoftMemoryRegion bindRegion;
    int bindNewRkey;
    long bindAddress;
    long bindLength;
    int bindAccess;
    long totalLength;
    int rnrAttempts;
    /** To a vanished peer ({@link SoftwareFabric#severConnection}): when its transport retries are spent, or 0. */
    long retriesSpentAt;

    SoftSendWr(int maxSge, int maxInline) {
        sgeAddress = new long[maxSge];
        sgeLength = new int[maxSge];
        sgeLkey = new int[maxSge];
        inline = new byte[maxInline];
    }

    /** Copies {@code wr} (already checked against the QP's capabilities) into this entry. */
    SoftSendWr load(SendWorkRequest wr) {
        wrId = wr.wrId();
        opcode = wr.opcode();
        flags = wr.sendFlags();
        int n = wr.numSge();
        totalLength = wr.totalLength();
        isInline = (flags & SendFlags.INLINE) != 0;
        if (isInline) {
            int off = 0;
            for (int i = 0; i < n; i++) {
                PlatformDependent.copyMemory(wr.sgeAddress(i), inline, off, wr.sgeLength(i));
                off += wr.sgeLength(i);
            }
            numSge = 0;
        } else {
            for (int i = 0; i < n; i++) {
                sgeAddress[i] = wr.sgeAddress(i);
                sgeLength[i] = wr.sgeLength(i);
                sgeLkey[i] = wr.sgeLkey(i);
            }
            numSge = n;
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
        rnrAttempts = 0;
        retriesSpentAt = 0;
        return this;
    }

    /** Copies the payload (inline bytes or the gather list) to native memory at {@code dst}. */
    void gather(long dst) {
        if (isInline) {
            PlatformDependent.copyMemory(inline, 0, dst, totalLength);
            return;
        }
        for (int i = 0; i < numSge; i++) {
            PlatformDependent.copyMemory(sgeAddress[i], dst, sgeLength[i]);
            dst += sgeLength[i];
        }
    }

    /** Drops the references a retired entry holds (the window and region of a bind). */
    void retire() {
        bindWindow = null;
        bindRegion = null;
    }

    boolean signaled() {
        return (flags & SendFlags.SIGNALED) != 0;
    }
}
