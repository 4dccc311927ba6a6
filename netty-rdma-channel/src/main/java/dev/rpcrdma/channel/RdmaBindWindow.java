package dev.rpcrdma.channel;

import io.netty.util.internal.ObjectUtil;

/**
 * Outbound: bind a {@link RdmaMemoryWindow} to {@code length} bytes at {@code offset} of {@link RdmaMemory} with
 * remote {@code access} ({@code IBV_ACCESS_REMOTE_*}); the memory must be registered with {@code MW_BIND}. The
 * {@link #rkey()} is fixed when the message is created, so a Send advertising it can be written right behind it
 * (the send queue keeps the order). The write promise completes with the bind's completion.
 */
public final class RdmaBindWindow {
    private final RdmaMemoryWindow window;
    private final RdmaMemory memory;
    private final int offset;
    private final int length;
    private final int access;
    private final int rkey;

    public RdmaBindWindow(RdmaMemoryWindow window, RdmaMemory memory, int offset, int length, int access) {
        this.window = ObjectUtil.checkNotNull(window, "window");
        this.memory = ObjectUtil.checkNotNull(memory, "memory");
        if (offset < 0 || length < 0 || (long) offset + length > memory.length()) {
            throw new IndexOutOfBoundsException("window range " + offset + "+" + length + " outside "
                    + memory.length());
        }
        this.offset = offset;
        this.length = length;
        this.access = access;
        this.rkey = window.reserveRkey();
    }

    public RdmaMemoryWindow window() {
        return window;
    }

    public RdmaMemory memory() {
        return memory;
    }

    public int offset() {
        return offset;
    }

    public int length() {
        return length;
    }

    public int access() {
        return access;
    }

    /** The rkey the peer uses once the bind completes. */
    public int rkey() {
        return rkey;
    }

    /** The address the peer uses for the first byte of the window. */
    public long address() {
        return memory.address() + offset;
    }
}
