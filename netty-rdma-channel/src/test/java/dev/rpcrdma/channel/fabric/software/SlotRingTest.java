package dev.rpcrdma.channel.fabric.software;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reusable rings behind the software fabric's work and completion queues. */
class SlotRingTest {
    /** A mutable entry, as the queues use. */
    static final class Entry {
        long value;
    }

    @Test
    void isFifoAcrossWrapAroundAndGrowthAndReusesItsEntries() {
        List<Entry> created = new ArrayList<>();
        SlotRing<Entry> ring = new SlotRing<>(100, () -> {
            Entry e = new Entry();
            created.add(e);
            return e;
        });
        long next = 0;
        long expected = 0;
        // Depth 10, then 40 (grows while wrapped), then 10 again: order must hold throughout.
        int[] depths = {10, 40, 10};
        for (int depth : depths) {
            for (int round = 0; round < 50; round++) {
                while (ring.size() < depth) {
                    ring.claimTail().value = next++;
                }
                for (int k = 0; k < 3; k++) {
                    Entry e = ring.poll();
                    assertEquals(expected++, e.value);
                }
            }
        }
        while (!ring.isEmpty()) {
            assertEquals(expected++, ring.poll().value);
        }
        assertNull(ring.poll());
        assertNull(ring.peek());
        assertEquals(next, expected);
        // Thousands of entries went through; only as many objects exist as the deepest queue needed (plus the
        // slots of the grown array that were reached once).
        assertTrue(created.size() <= 64, "created " + created.size() + " entries for a queue of depth 40");
        Map<Entry, Boolean> distinct = new IdentityHashMap<>();
        created.forEach(e -> distinct.put(e, true));
        assertEquals(created.size(), distinct.size());
    }

    @Test
    void theLimitBoundsTheQueueNotTheArray() {
        SlotRing<Entry> ring = new SlotRing<>(5, Entry::new);
        for (int i = 0; i < 5; i++) {
            ring.claimTail().value = i;
        }
        assertTrue(ring.isFull());
        assertThrows(IllegalStateException.class, ring::claimTail);
        Entry head = ring.poll();
        assertEquals(0, head.value);
        assertEquals(1, ring.peek().value);
        // The freed slot comes back around eventually; the ring never holds more than 5.
        Entry again = null;
        for (int i = 0; i < 16; i++) {
            Entry e = ring.claimTail();
            if (e == head) {
                again = e;
            }
            e.value = 100 + i;
            ring.poll();
        }
        assertSame(head, again, "the retired entry is reused");
        assertEquals(4, ring.size());
        ring.clear();
        assertTrue(ring.isEmpty());
        assertNull(ring.poll());
    }
}
