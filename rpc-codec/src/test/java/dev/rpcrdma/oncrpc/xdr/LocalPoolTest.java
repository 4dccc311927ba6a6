package dev.rpcrdma.oncrpc.xdr;

import io.netty.util.Recycler;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LocalPool}: objects come back to the Netty thread that released them, up to a stack's capacity; other
 * threads keep none.
 */
class LocalPoolTest {

    /** Runs {@code body} on a thread of Netty's (one that cleans up its thread-locals), twice over. */
    private static <T> T onNettyThread(java.util.concurrent.Callable<T> body) throws Exception {
        ExecutorService e = Executors.newSingleThreadExecutor(new DefaultThreadFactory("local-pool-test"));
        try {
            return e.submit(body).get();
        } finally {
            e.shutdown();
        }
    }

    private static final class Item {
        final Recycler.Handle<Item> handle;

        Item(Recycler.Handle<Item> handle) {
            this.handle = handle;
        }
    }

    private final AtomicInteger created = new AtomicInteger();
    private final LocalPool<Item> pool = new LocalPool<>(new Recycler<Item>() {
        @Override
        protected Item newObject(Handle<Item> handle) {
            created.incrementAndGet();
            return new Item(handle);
        }
    });

    @Test
    void whatAThreadReleasesItTakesAgainWithoutCreatingObjects() throws Exception {
        onNettyThread(this::takesBackWhatItReleased);
    }

    private Void takesBackWhatItReleased() {
        Item a = pool.get();
        Item b = pool.get();
        pool.recycle(a, a.handle);
        pool.recycle(b, b.handle);
        int before = created.get();
        assertSame(b, pool.get()); // last in, first out
        assertSame(a, pool.get());
        assertEquals(before, created.get());
        return null;
    }

    @Test
    void objectsMadeOnOneThreadAndReleasedOnAnotherServeTheReleasingThread() throws Exception {
        int n = LocalPool.CAPACITY + 10;
        List<Item> made = onNettyThread(() -> {
            List<Item> items = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                items.add(pool.get());
            }
            return items;
        });
        onNettyThread(() -> releasedHereComeBackHere(made));
    }

    private Void releasedHereComeBackHere(List<Item> made) {
        int before = created.get();
        for (Item item : made) {
            pool.recycle(item, item.handle); // a full stack hands the rest to their recycler
        }
        List<Item> again = new ArrayList<>();
        for (int i = 0; i < LocalPool.CAPACITY; i++) {
            again.add(pool.get());
        }
        assertEquals(before, created.get());
        for (int i = 0; i < LocalPool.CAPACITY; i++) {
            assertSame(made.get(LocalPool.CAPACITY - 1 - i), again.get(i));
        }
        assertTrue(again.stream().distinct().count() == LocalPool.CAPACITY);
        return null;
    }

    @Test
    void aThreadThatIsNotNettysKeepsNoStack() throws Exception {
        Item item = CompletableFuture.supplyAsync(pool::get).get();
        CompletableFuture.runAsync(() -> pool.recycle(item, item.handle)).get();
        int before = created.get();
        Item next = CompletableFuture.supplyAsync(pool::get).get();
        // Netty's Recycler pools only on its own threads: a new object, not the one released above.
        assertTrue(next != item);
        assertEquals(before + 1, created.get());
    }
}
