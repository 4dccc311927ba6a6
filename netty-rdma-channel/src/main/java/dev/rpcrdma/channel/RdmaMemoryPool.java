package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.MemoryRegion;
import dev.rpcrdma.channel.fabric.ProtectionDomain;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Registered memory for chunks, as xprtrdma's and svcrdma's pre-registered buffers: slabs registered once with
 * {@code LOCAL_WRITE | MW_BIND} only (a peer reaches a piece only through a window bound over it), carved into
 * power-of-two {@link ByteBuf} pieces that never reallocate. At {@link RdmaChannelOption#MEMORY_POOL_MAX_BYTES}
 * {@link #tryAllocate} returns {@code null} and {@link #whenAvailable} waits. A piece is the caller's until it
 * releases it (any thread); a piece held after close stays readable. The module README ("Registered memory pool")
 * has the details.
 */
public final class RdmaMemoryPool {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaMemoryPool.class);
    /** Smallest piece: one page. */
    static final int MIN_PIECE = 4096;
    private static final int MIN_SHIFT = 12;
    private static final int CLASSES = 31 - MIN_SHIFT;

    private final RdmaChannel channel;
    private final ProtectionDomain pd;
    private final ByteBufAllocator slabAllocator;
    private final EventExecutor executor;
    private final int slabSize;
    private final long maxBytes;
    private final PoolAllocator allocator = new PoolAllocator(this);
    @SuppressWarnings("unchecked")
    private final ArrayDeque<Piece>[] free = new ArrayDeque[CLASSES];
    private final List<Slab> slabs = new ArrayList<>();
    /** Slabs by address, for {@link #memoryOf}; replaced (never mutated) under the lock. */
    private volatile Slab[] slabView = new Slab[0];
    private final ArrayDeque<Runnable> waiters = new ArrayDeque<>();
    private long registered;
    private long used;
    private long exhaustions;
    private boolean closed;
    private boolean waitersScheduled;

    RdmaMemoryPool(RdmaChannel channel, ProtectionDomain pd, ByteBufAllocator slabAllocator, EventExecutor executor,
                   int slabSize, long maxBytes) {
        this.channel = channel;
        this.pd = ObjectUtil.checkNotNull(pd, "pd");
        this.slabAllocator = ObjectUtil.checkNotNull(slabAllocator, "slabAllocator");
        this.executor = ObjectUtil.checkNotNull(executor, "executor");
        this.slabSize = pieceSize(ObjectUtil.checkInRange(slabSize, MIN_PIECE, RdmaEndpoint.MAX_SLAB_BYTES,
                "slabSize"));
        this.maxBytes = ObjectUtil.checkPositive(maxBytes, "maxBytes");
        for (int i = 0; i < CLASSES; i++) {
            free[i] = new ArrayDeque<>();
        }
    }

    /** An allocator of pool pieces ({@code directBuffer} fails with {@link IllegalStateException} when exhausted). */
    public ByteBufAllocator allocator() {
        return allocator;
    }

    /**
     * A piece of at least {@code size} bytes (capacity and max capacity the piece size), or {@code null} when the
     * pool is at its limit and nothing of that class is free (wait with {@link #whenAvailable}).
     *
     * @throws IllegalArgumentException if {@code size} could never be served (over the limit or 1 GiB)
     * @throws IllegalStateException if the pool was closed (the connection is gone)
     * @throws RdmaException if registering a new slab failed
     */
    public ByteBuf tryAllocate(int size) throws RdmaException {
        ByteBuf b = allocate(size);
        return b == null ? null : allocator.leakAware(b);
    }

    /** {@link #tryAllocate} without the leak-detector wrapper (the allocator adds it). */
    ByteBuf allocate(int size) throws RdmaException {
        ObjectUtil.checkPositiveOrZero(size, "size");
        int pieceSize = pieceSize(Math.max(size, 1));
        if (pieceSize > maxBytes || pieceSize > RdmaEndpoint.MAX_SLAB_BYTES) {
            throw new IllegalArgumentException("a " + size + "-byte piece exceeds the pool limit of " + maxBytes
                    + " bytes (MEMORY_POOL_MAX_BYTES)");
        }
        Piece p = take(pieceSize);
        return p == null ? null : new PoolByteBuf(allocator, this, p);
    }

    /**
     * Runs {@code task} on the connection's event loop after a piece was released (or at once if the pool is
     * closed): the back-pressure hook of a caller whose {@link #tryAllocate} returned {@code null}. The task should
     * try again (and wait again if it still gets nothing).
     */
    public void whenAvailable(Runnable task) {
        ObjectUtil.checkNotNull(task, "task");
        boolean now;
        synchronized (this) {
            now = closed;
            if (!now) {
                waiters.add(task);
            }
        }
        if (now) {
            executor.execute(task);
        }
    }

    /**
     * The registered memory holding all readable bytes of {@code buffer} (a pool piece or any buffer derived from
     * one), or {@code null} if they are not in this pool. The region's offset of the first readable byte is
     * {@code buffer.memoryAddress() + buffer.readerIndex() - memory.address()}. The memory belongs to the pool:
     * bind windows over it, never deregister it.
     */
    public RdmaMemory memoryOf(ByteBuf buffer) {
        if (!buffer.hasMemoryAddress()) {
            return null;
        }
        long start = buffer.memoryAddress() + buffer.readerIndex();
        long end = start + buffer.readableBytes();
        for (Slab s : slabView) {
            if (start >= s.address && end <= s.address + s.size) {
                return s.memory;
            }
        }
        return null;
    }

    /** Bytes registered in slabs now. */
    public synchronized long registeredBytes() {
        return registered;
    }

    /** Bytes of pieces handed out and not yet released. */
    public synchronized long usedBytes() {
        return used;
    }

    /** The limit of {@link #registeredBytes()}. */
    public long maxBytes() {
        return maxBytes;
    }

    /** How many times {@link #tryAllocate} found the pool exhausted. */
    public synchronized long exhaustions() {
        return exhaustions;
    }

    /** Slabs registered now. */
    public synchronized int slabCount() {
        return slabs.size();
    }

    /** The piece size serving {@code size} bytes: the next power of two, at least {@value #MIN_PIECE}. */
    static int pieceSize(int size) {
        return size <= MIN_PIECE ? MIN_PIECE : Integer.highestOneBit(size - 1) << 1;
    }

    private static int classOf(int pieceSize) {
        return Integer.numberOfTrailingZeros(pieceSize) - MIN_SHIFT;
    }

    private synchronized Piece take(int pieceSize) throws RdmaException {
        if (closed) {
            throw new IllegalStateException("the connection's registered memory is gone (closed)");
        }
        ArrayDeque<Piece> list = free[classOf(pieceSize)];
        Piece p = list.poll();
        if (p == null) {
            int bytes = Math.max(pieceSize, slabSize);
            if (registered + bytes > maxBytes) {
                reclaimFreeSlabs(classOf(pieceSize));
            }
            if (registered + bytes > maxBytes) {
                exhaustions++;
                return null;
            }
            grow(pieceSize, bytes);
            p = list.poll();
        }
        p.slab.inUse++;
        used += p.size;
        return p;
    }

    /** Registers a slab of {@code bytes} for pieces of {@code pieceSize}; under the lock. */
    private void grow(int pieceSize, int bytes) throws RdmaException {
        // The hint names the connection in a leak report (a piece never released keeps its slab after close).
        ByteBuf buf = slabAllocator.directBuffer(bytes, bytes).touch(channel);
        MemoryRegion mr;
        try {
            if (!buf.hasMemoryAddress()) {
                throw new RdmaException("the channel's allocator gave a direct buffer without a memory address");
            }
            mr = pd.registerMemory(buf.memoryAddress(), bytes, RdmaAccess.LOCAL_WRITE | RdmaAccess.MW_BIND);
        } catch (IOException e) {
            buf.release();
            throw e instanceof RdmaException ? (RdmaException) e
                    : new RdmaException("registering a " + bytes + "-byte pool slab failed", e);
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
        Slab s = new Slab(buf, new RdmaMemory(channel, buf, mr, buf.memoryAddress(), bytes).pooled(), pieceSize);
        slabs.add(s);
        slabView = slabs.toArray(new Slab[0]);
        registered += bytes;
        ByteBuffer whole = buf.nioBuffer(0, bytes);
        ArrayDeque<Piece> list = free[classOf(pieceSize)];
        for (int off = 0; off < bytes; off += pieceSize) {
            ByteBuffer nio = whole.duplicate();
            nio.position(off).limit(off + pieceSize);
            list.add(new Piece(s, nio.slice(), pieceSize));
        }
    }

    /** Deregisters and frees wholly free slabs of classes other than {@code except}; under the lock. */
    private void reclaimFreeSlabs(int except) {
        for (Iterator<Slab> it = slabs.iterator(); it.hasNext(); ) {
            Slab s = it.next();
            int c = classOf(s.pieceSize);
            if (c == except || s.inUse != 0 || s.memory.inUse()) {
                continue;
            }
            free[c].removeIf(p -> p.slab == s);
            it.remove();
            registered -= s.size;
            destroy(s);
        }
        slabView = slabs.toArray(new Slab[0]);
    }

    /** A piece came back (any thread). */
    void release(Piece p) {
        boolean schedule = false;
        synchronized (this) {
            used -= p.size;
            p.slab.inUse--;
            if (closed) {
                if (p.slab.inUse == 0) {
                    p.slab.buffer.release();
                }
                return;
            }
            free[classOf(p.size)].push(p);
            if (!waiters.isEmpty() && !waitersScheduled) {
                waitersScheduled = true;
                schedule = true;
            }
        }
        if (schedule) {
            executor.execute(this::runWaiters);
        }
    }

    private void runWaiters() {
        List<Runnable> run;
        synchronized (this) {
            waitersScheduled = false;
            run = new ArrayList<>(waiters);
            waiters.clear();
        }
        for (Runnable r : run) {
            try {
                r.run();
            } catch (Throwable t) {
                logger.warn("{}: a task waiting for pool memory failed", channel, t);
            }
        }
    }

    /**
     * Deregisters every slab (after the queue pair is gone; before the protection domain) and frees the memory of
     * those with no piece out; the others are freed when their last piece comes back. Waiters run (and find the
     * pool closed). Idempotent.
     */
    void close() {
        List<Runnable> run;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            for (Slab s : slabs) {
                closeRegion(s);
                if (s.inUse == 0) {
                    s.buffer.release();
                }
            }
            slabs.clear();
            slabView = new Slab[0];
            registered = 0;
            for (ArrayDeque<Piece> l : free) {
                l.clear();
            }
            run = new ArrayList<>(waiters);
            waiters.clear();
        }
        for (Runnable r : run) {
            executor.execute(r);
        }
    }

    private void destroy(Slab s) {
        closeRegion(s);
        s.buffer.release();
    }

    private void closeRegion(Slab s) {
        try {
            s.memory.region().close();
        } catch (IOException e) {
            logger.warn("{}: failed to deregister a pool slab", channel, e);
        }
        s.memory.markPoolDeregistered();
    }

    @Override
    public String toString() {
        return "RdmaMemoryPool(" + channel + ", registered " + registeredBytes() + ", used " + usedBytes() + ')';
    }

    /** One registered slab serving one size class. */
    private static final class Slab {
        final ByteBuf buffer;
        final RdmaMemory memory;
        final long address;
        final int size;
        final int pieceSize;
        int inUse;

        Slab(ByteBuf buffer, RdmaMemory memory, int pieceSize) {
            this.buffer = buffer;
            this.memory = memory;
            this.address = memory.address();
            this.size = memory.length();
            this.pieceSize = pieceSize;
        }
    }

    /** One piece of a slab: its memory as a {@link ByteBuffer} (reused for every allocation of the piece). */
    static final class Piece {
        final Slab slab;
        final ByteBuffer memory;
        final int size;

        Piece(Slab slab, ByteBuffer memory, int size) {
            this.slab = slab;
            this.memory = memory;
            this.size = size;
        }
    }
}
