package dev.rpcrdma.oncrpc.gss;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The server's RPCSEC_GSS contexts by handle, bounded in total and per peer: admitting a context past a bound
 * evicts the least recently used one of that scope (a flood of INITs pushes out idle contexts, the busiest stay).
 * Thread-safe (one lock; lookups are short).
 */
final class GssContextTable {

    private final int maxTotal;
    private final int maxPerPeer;
    private final RpcGssStats stats;
    /** Access order: the first entry is the least recently used. */
    private final LinkedHashMap<GssServerContext.Handle, GssServerContext> contexts =
            new LinkedHashMap<>(16, 0.75f, true);
    private final Map<Object, Integer> perPeer = new HashMap<>();

    GssContextTable(int maxTotal, int maxPerPeer, RpcGssStats stats) {
        this.maxTotal = maxTotal;
        this.maxPerPeer = maxPerPeer;
        this.stats = stats;
    }

    /** Adds {@code context}; returns the contexts evicted for it (to dispose outside the lock), possibly none. */
    java.util.List<GssServerContext> add(GssServerContext context) {
        java.util.List<GssServerContext> evicted = new java.util.ArrayList<>(1);
        synchronized (contexts) {
            if (perPeer.getOrDefault(context.peer, 0) >= maxPerPeer) {
                evict(context.peer, evicted);
            }
            if (contexts.size() >= maxTotal) {
                evict(null, evicted);
            }
            contexts.put(context.handle, context);
            perPeer.merge(context.peer, 1, Integer::sum);
        }
        for (int i = 0; i < evicted.size(); i++) {
            stats.contextEvicted();
        }
        return evicted;
    }

    /** Removes the least recently used context of {@code peer} (null: of anyone). */
    private void evict(Object peer, java.util.List<GssServerContext> evicted) {
        Iterator<GssServerContext> it = contexts.values().iterator();
        while (it.hasNext()) {
            GssServerContext c = it.next();
            if (peer == null || peer.equals(c.peer)) {
                it.remove();
                uncount(c);
                evicted.add(c);
                return;
            }
        }
    }

    private void uncount(GssServerContext c) {
        perPeer.computeIfPresent(c.peer, (k, n) -> n <= 1 ? null : n - 1);
    }

    /** The context of {@code handle} (now the most recently used), or null. */
    GssServerContext get(GssServerContext.Handle handle) {
        synchronized (contexts) {
            return contexts.get(handle);
        }
    }

    /** Removes {@code context} if it is still there; whether it was. */
    boolean remove(GssServerContext context) {
        synchronized (contexts) {
            if (contexts.get(context.handle) != context) {
                return false;
            }
            contexts.remove(context.handle);
            uncount(context);
            return true;
        }
    }

    int size() {
        synchronized (contexts) {
            return contexts.size();
        }
    }
}
