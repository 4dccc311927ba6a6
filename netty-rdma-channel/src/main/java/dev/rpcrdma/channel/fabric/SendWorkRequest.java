package dev.rpcrdma.channel.fabric;

import io.netty.util.internal.ObjectUtil;

/**
 * A reusable, mutable send work request ({@code struct ibv_send_wr} with its SGE list). Reset with
 * {@link #clear()}, fill, post with {@link QueuePair#postSend(SendWorkRequest)}. A native fabric copies it into its
 * native flyweight; fields are named after the C struct.
 */
public final class SendWorkRequest {
    /** Most SGEs one request carries here. */
    public static final int MAX_SGE = 16;

    private long wrId;
    private int opcode;
    private int sendFlags;
    private int numSge;
    private final long[] sgeAddress = new long[MAX_SGE];
    private final int[] sgeLength = new int[MAX_SGE];
    private final int[] sgeLkey = new int[MAX_SGE];
    private long remoteAddress;
    private int rkey;
    private int invalidateRkey;
    private MemoryWindow bindWindow;
    private MemoryRegion bindRegion;
    private int bindNewRkey;
    private long bindAddress;
    private long bindLength;
    private int bindAccess;

    /** Resets every field. */
    public SendWorkRequest clear() {
        wrId = 0;
        opcode = 0;
        sendFlags = 0;
        numSge = 0;
        remoteAddress = 0;
        rkey = 0;
        invalidateRkey = 0;
        bindWindow = null;
        bindRegion = null;
        bindNewRkey = 0;
        bindAddress = 0;
        bindLength = 0;
        bindAccess = 0;
        return this;
    }

    public SendWorkRequest wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /** A {@link WrOpcode}. */
    public SendWorkRequest opcode(int opcode) {
        this.opcode = opcode;
        return this;
    }

    /** {@link SendFlags}. */
    public SendWorkRequest sendFlags(int sendFlags) {
        this.sendFlags = sendFlags;
        return this;
    }

    /** Appends a scatter/gather element ({@code lkey} is ignored for {@link SendFlags#INLINE} requests). */
    public SendWorkRequest addSge(long address, int length, int lkey) {
        if (numSge == MAX_SGE) {
            throw new IllegalStateException("more than " + MAX_SGE + " SGEs");
        }
        ObjectUtil.checkPositiveOrZero(length, "length");
        sgeAddress[numSge] = address;
        sgeLength[numSge] = length;
        sgeLkey[numSge] = lkey;
        numSge++;
        return this;
    }

    /** {@code wr.rdma.remote_addr / wr.rdma.rkey} for RDMA Write and Read. */
    public SendWorkRequest remote(long remoteAddress, int rkey) {
        this.remoteAddress = remoteAddress;
        this.rkey = rkey;
        return this;
    }

    /** {@code wr.invalidate_rkey} for Send With Invalidate. */
    public SendWorkRequest invalidateRkey(int invalidateRkey) {
        this.invalidateRkey = invalidateRkey;
        return this;
    }

    /** {@code wr.bind_mw}: bind {@code window} with {@code newRkey} to a range of {@code region}. */
    public SendWorkRequest bind(MemoryWindow window, int newRkey, MemoryRegion region, long address, long length,
                                int access) {
        this.bindWindow = ObjectUtil.checkNotNull(window, "window");
        this.bindRegion = ObjectUtil.checkNotNull(region, "region");
        this.bindNewRkey = newRkey;
        this.bindAddress = address;
        this.bindLength = length;
        this.bindAccess = access;
        return this;
    }

    public long wrId() {
        return wrId;
    }

    public int opcode() {
        return opcode;
    }

    public int sendFlags() {
        return sendFlags;
    }

    public int numSge() {
        return numSge;
    }

    public long sgeAddress(int i) {
        return sgeAddress[i];
    }

    public int sgeLength(int i) {
        return sgeLength[i];
    }

    public int sgeLkey(int i) {
        return sgeLkey[i];
    }

    /** Sum of the SGE lengths. */
    public long totalLength() {
        long n = 0;
        for (int i = 0; i < numSge; i++) {
            n += sgeLength[i];
        }
        return n;
    }

    public long remoteAddress() {
        return remoteAddress;
    }

    public int rkey() {
        return rkey;
    }

    public int invalidateRkey() {
        return invalidateRkey;
    }

    public MemoryWindow bindWindow() {
        return bindWindow;
    }

    public MemoryRegion bindRegion() {
        return bindRegion;
    }

    public int bindNewRkey() {
        return bindNewRkey;
    }

    public long bindAddress() {
        return bindAddress;
    }

    public long bindLength() {
        return bindLength;
    }

    public int bindAccess() {
        return bindAccess;
    }
}
