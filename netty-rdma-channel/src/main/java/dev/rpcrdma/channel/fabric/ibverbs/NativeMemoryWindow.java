package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.fabric.MemoryWindow;
import dev.rpcrdma.channel.verbs.Verbs;

import java.io.IOException;

/**
 * Type-2 {@code ibv_mw}; the bound rkey is tracked here and written back into {@code ibv_mw->rkey} once a bind was
 * posted, because rxe does not update that field and identifies the window by it when it is bound again.
 */
final class NativeMemoryWindow implements MemoryWindow {
    final long mw;
    private volatile int rkey;
    private boolean closed;

    NativeMemoryWindow(long mw) {
        this.mw = mw;
        this.rkey = Verbs.mwRkey(mw);
    }

    /** A bind with {@code newRkey} was posted (the device took it). */
    void posted(int newRkey) {
        rkey = newRkey;
        Verbs.setMwRkey(mw, newRkey);
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public void close() throws IOException {
        if (!closed) {
            Verbs.deallocMw(mw);
            closed = true;
        }
    }
}
