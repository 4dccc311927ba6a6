package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.CompletionArray;
import dev.rpcrdma.channel.fabric.CompletionQueue;
import dev.rpcrdma.channel.fabric.FabricException;

import java.io.IOException;

/**
 * Completion queue with a fixed capacity; overflowing it is a fatal CQ error, as on hardware. Its entries are a ring
 * of reused {@link SoftCompletion}s (no allocation per completion).
 */
final class SoftCompletionQueue implements CompletionQueue {
    private final SoftwareFabric fabric;
    private final SoftCompletionChannel channel;
    private final int capacity;
    private final SlotRing<SoftCompletion> entries;
    private boolean armed;
    private boolean overflowed;
    private boolean closed;
    int eventsDelivered;
    private int eventsAcked;

    SoftCompletionQueue(SoftwareFabric fabric, int capacity, SoftCompletionChannel channel) {
        this.fabric = fabric;
        this.capacity = capacity;
        this.channel = channel;
        entries = new SlotRing<>(capacity, SoftCompletion::new);
        fabric.count("cq", 1);
    }

    /** Adds a completion; caller holds the fabric lock. */
    void add(long wrId, int status, int opcode, int byteLength, int flags, int invalidatedRkey, int qpNum) {
        if (closed) {
            return;
        }
        if (entries.isFull()) {
            overflowed = true;
            return;
        }
        entries.claimTail().set(wrId, status, opcode, byteLength, flags, invalidatedRkey, qpNum);
        if (armed && channel != null) {
            armed = false;
            channel.signal(this);
        }
    }

    @Override
    public CompletionArray newCompletionArray(int capacity) {
        return new SoftCompletionArray(capacity);
    }

    @Override
    public int poll(CompletionArray out) throws IOException {
        SoftCompletionArray array = (SoftCompletionArray) out;
        synchronized (fabric.lock) {
            if (overflowed) {
                throw new FabricException("completion queue overflow (capacity " + capacity + ")",
                        FabricException.ENOMEM);
            }
            int n = 0;
            while (n < array.capacity()) {
                SoftCompletion c = entries.poll();
                if (c == null) {
                    break;
                }
                array.set(n++, c);
            }
            return n;
        }
    }

    @Override
    public void requestNotify(boolean solicitedOnly) throws IOException {
        synchronized (fabric.lock) {
            if (closed) {
                throw new FabricException("completion queue destroyed", FabricException.EINVAL);
            }
            // Like hardware: arming while entries exist does not signal for them; only new completions do.
            armed = true;
        }
    }

    @Override
    public void ackEvents(int count) {
        synchronized (fabric.lock) {
            eventsAcked += count;
        }
    }

    @Override
    public void close() throws IOException {
        synchronized (fabric.lock) {
            if (closed) {
                return;
            }
            if (eventsAcked < eventsDelivered) {
                // ibv_destroy_cq would block forever here.
                throw new FabricException("destroying a CQ with " + (eventsDelivered - eventsAcked)
                        + " unacknowledged events", FabricException.EBUSY);
            }
            closed = true;
            fabric.count("cq", -1);
            entries.clear();
        }
    }
}
