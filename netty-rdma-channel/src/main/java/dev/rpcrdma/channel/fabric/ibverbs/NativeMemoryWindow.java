package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.fabric.MemoryWindow;
import dev.rpcrdma.channel.verbs.Verbs;

import java.io.IOException;

/** Type-2 {@code ibv_mw}; the bound rkey is tracked here because rxe does not update {@code ibv_mw->rkey}. */
final class NativeMemoryWindow implements MemoryWindow {
    final long mw;
    private volatile int rkey;
    private boolean closed;

    NativeMemoryWindow(long mw) {
        this.mw = mw;
        this.rkey = Verbs.mwRkey(mw);
    }

    void posted(int newRkey) {
        rkey = newRkey;
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
