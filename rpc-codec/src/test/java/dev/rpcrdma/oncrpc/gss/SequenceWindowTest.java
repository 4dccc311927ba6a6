package dev.rpcrdma.oncrpc.gss;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RFC 2203 §5.3.3.1 replay detection: new numbers in the window pass once, duplicates and old ones do not. */
class SequenceWindowTest {

    @Test
    void inOrderNumbersPassOnceEach() {
        SequenceWindow w = new SequenceWindow(4);
        for (long s = 0; s < 20; s++) {
            assertTrue(w.accept(s), "new " + s);
            assertFalse(w.accept(s), "replayed " + s);
        }
    }

    @Test
    void outOfOrderWithinTheWindowPassesAndBelowItIsRefused() {
        SequenceWindow w = new SequenceWindow(4);
        assertTrue(w.accept(10));
        assertTrue(w.accept(8));
        assertTrue(w.accept(7), "10 - 7 < 4: inside the window");
        assertFalse(w.accept(6), "10 - 6 = 4: below the window");
        assertFalse(w.accept(8), "seen");
        assertTrue(w.accept(9));
        assertTrue(w.accept(12));
        assertFalse(w.accept(8), "now below the window");
        assertTrue(w.accept(11));
        assertFalse(w.accept(10), "seen before the window moved");
    }

    @Test
    void aJumpFarAheadForgetsWhatWasSeen() {
        SequenceWindow w = new SequenceWindow(128);
        for (long s = 0; s < 128; s++) {
            assertTrue(w.accept(s));
        }
        assertTrue(w.accept(1000));
        for (long s = 1000 - 127; s < 1000; s++) {
            assertTrue(w.accept(s), "never seen: " + s);
        }
        assertFalse(w.accept(1000 - 128));
        assertFalse(w.accept(1000));
    }

    @Test
    void theFirstNumberMayBeAnything() {
        SequenceWindow w = new SequenceWindow(2);
        assertTrue(w.accept(0x7fffffffL));
        assertTrue(w.accept(0x7ffffffeL));
        assertFalse(w.accept(0x7ffffffdL));
        assertTrue(w.accept(0x80000000L));
    }
}
