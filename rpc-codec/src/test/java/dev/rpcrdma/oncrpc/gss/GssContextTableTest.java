package dev.rpcrdma.oncrpc.gss;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bounded context table: per-peer and total bounds evict the least recently used context of the scope. */
class GssContextTableTest {

    private final RpcGssStats stats = new RpcGssStats();
    private int next;

    private GssServerContext context(String peer) {
        return new GssServerContext(new GssServerContext.Handle(new byte[] {(byte) next++}), peer, null, 8);
    }

    @Test
    void aPeerOverItsBoundLosesItsLeastRecentlyUsedContext() {
        GssContextTable table = new GssContextTable(10, 2, stats);
        GssServerContext a1 = context("a");
        GssServerContext a2 = context("a");
        GssServerContext b1 = context("b");
        assertTrue(table.add(a1).isEmpty());
        assertTrue(table.add(a2).isEmpty());
        assertTrue(table.add(b1).isEmpty());
        assertSame(a1, table.get(a1.handle)); // a2 is now a's least recently used
        GssServerContext a3 = context("a");
        assertEquals(List.of(a2), table.add(a3));
        assertNull(table.get(a2.handle));
        assertSame(b1, table.get(b1.handle), "another peer's context stays");
        assertEquals(3, table.size());
        assertEquals(1, stats.contextsEvicted());
    }

    @Test
    void theTotalBoundEvictsTheLeastRecentlyUsedOfAnyone() {
        GssContextTable table = new GssContextTable(3, 3, stats);
        GssServerContext a = context("a");
        GssServerContext b = context("b");
        GssServerContext c = context("c");
        table.add(a);
        table.add(b);
        table.add(c);
        table.get(a.handle);
        GssServerContext d = context("d");
        assertEquals(List.of(b), table.add(d));
        assertEquals(3, table.size());
        // The per-peer count of an evicted context is given back.
        assertTrue(table.add(context("b")).size() == 1);
    }

    @Test
    void removeTakesOnlyTheSameContext() {
        GssContextTable table = new GssContextTable(3, 3, stats);
        GssServerContext a = context("a");
        table.add(a);
        assertTrue(table.remove(a));
        assertFalse(table.remove(a));
        assertEquals(0, table.size());
        for (int i = 0; i < 3; i++) {
            assertTrue(table.add(context("a")).isEmpty(), "a's count went back to 0");
        }
    }
}
