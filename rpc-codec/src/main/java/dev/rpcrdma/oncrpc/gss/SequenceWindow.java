package dev.rpcrdma.oncrpc.gss;

/**
 * RFC 2203 §5.3.3.1 replay detection on the server: the highest sequence number seen and which of the
 * {@code size} numbers up to it were seen. A number already seen, or below the window, is refused (the request is
 * dropped silently). Not thread-safe: its context synchronizes.
 */
final class SequenceWindow {

    private final int size;
    private final long[] seen;
    /** The highest number accepted, -1 before the first. */
    private long highest = -1;

    SequenceWindow(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("window " + size);
        }
        this.size = size;
        this.seen = new long[(size + 63) >>> 6];
    }

    int size() {
        return size;
    }

    /** Whether {@code seq} (unsigned, below MAXSEQ) is new and within the window; if so it is now seen. */
    boolean accept(long seq) {
        if (seq > highest) {
            long shift = highest < 0 ? size : seq - highest;
            for (long s = highest + 1; s <= seq && s - (highest + 1) < size; s++) {
                clear(s);
            }
            if (shift >= size) {
                java.util.Arrays.fill(seen, 0);
            }
            highest = seq;
            set(seq);
            return true;
        }
        if (highest - seq >= size) {
            return false;
        }
        if (isSet(seq)) {
            return false;
        }
        set(seq);
        return true;
    }

    private int bit(long seq) {
        return (int) (seq % size);
    }

    private void set(long seq) {
        int b = bit(seq);
        seen[b >>> 6] |= 1L << (b & 63);
    }

    private void clear(long seq) {
        int b = bit(seq);
        seen[b >>> 6] &= ~(1L << (b & 63));
    }

    private boolean isSet(long seq) {
        int b = bit(seq);
        return (seen[b >>> 6] & (1L << (b & 63))) != 0;
    }
}
