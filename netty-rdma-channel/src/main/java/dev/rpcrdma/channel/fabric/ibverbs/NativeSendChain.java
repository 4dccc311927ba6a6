package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.fabric.MemoryRegion;
import dev.rpcrdma.channel.fabric.MemoryWindow;
import dev.rpcrdma.channel.fabric.PostException;
import dev.rpcrdma.channel.fabric.QueuePair;
import dev.rpcrdma.channel.fabric.SendChain;
import dev.rpcrdma.channel.verbs.NativeCallException;
import dev.rpcrdma.channel.verbs.SendWorkRequests;
import dev.rpcrdma.channel.verbs.Verbs;

import java.io.IOException;

/** A {@link SendChain} written straight into a native {@code ibv_send_wr} chain: each request is staged once. */
final class NativeSendChain implements SendChain {
    private final NativeQueuePair owner;
    private final long qp;
    /** Its own block: {@link NativeQueuePair#postSend} may run between two requests begun here (a drain marker). */
    private final SendWorkRequests wrs;
    /** The window each Bind of the chain binds, by index (its new rkey once posted), else null. */
    private final NativeMemoryWindow[] binds = new NativeMemoryWindow[QueuePair.MAX_POST_CHAIN];
    private final int[] bindRkeys = new int[QueuePair.MAX_POST_CHAIN];
    private int current = -1;

    NativeSendChain(NativeQueuePair owner, long qp, int maxSge) {
        this.owner = owner;
        this.qp = qp;
        wrs = new SendWorkRequests(QueuePair.MAX_POST_CHAIN, maxSge);
    }

    @Override
    public void begin(long wrId, int sendFlags) {
        owner.checkNotDestroyed(); // the block is freed with the queue pair
        current = wrs.add(wrId, 0, sendFlags);
        binds[current] = null;
    }

    @Override
    public void restart(long wrId, int sendFlags) {
        int i = current();
        wrs.restart(i, wrId);
        wrs.sendFlags(i, sendFlags);
        binds[i] = null;
    }

    @Override
    public void opcode(int opcode) {
        wrs.opcode(current(), opcode);
    }

    @Override
    public int sendFlags() {
        return wrs.sendFlags(current());
    }

    @Override
    public void sendFlags(int sendFlags) {
        wrs.sendFlags(current(), sendFlags);
    }

    @Override
    public void addSge(long address, int length, int lkey) {
        wrs.addSge(current(), address, length, lkey);
    }

    @Override
    public int numSge() {
        return wrs.numSge(current());
    }

    @Override
    public void remote(long remoteAddress, int rkey) {
        wrs.rdma(current(), remoteAddress, rkey);
    }

    @Override
    public void invalidateRkey(int rkey) {
        wrs.invalidateRkey(current(), rkey);
    }

    @Override
    public void bind(MemoryWindow window, int newRkey, MemoryRegion region, long address, long length, int access) {
        int i = current();
        NativeMemoryWindow w = (NativeMemoryWindow) window;
        wrs.bindMw(i, w.mw, newRkey, ((NativeMemoryRegion) region).mr, address, length, access);
        binds[i] = w;
        bindRkeys[i] = newRkey;
    }

    @Override
    public int count() {
        return wrs.count();
    }

    @Override
    public void post() throws IOException {
        int n = wrs.count();
        if (n == 0) {
            return;
        }
        int posted = n;
        IOException failure = null;
        try {
            owner.checkNotDestroyed();
            Verbs.postSend(qp, wrs);
        } catch (NativeCallException e) {
            int bad = wrs.badIndex();
            posted = bad < 0 ? 0 : bad; // bad_wr unknown: treat none as posted (the channel fails as a whole)
            failure = NativeErrors.of(e);
        } catch (IllegalStateException e) {
            posted = 0;
            failure = new IOException(e.getMessage(), e);
        }
        for (int i = 0; i < posted; i++) {
            NativeMemoryWindow w = binds[i];
            if (w != null) {
                w.posted(bindRkeys[i]); // a bound window now answers to its new rkey
            }
        }
        clear();
        if (failure != null) {
            throw new PostException("ibv_post_send", posted, failure);
        }
    }

    @Override
    public void clear() {
        for (int i = 0; i < wrs.count(); i++) {
            binds[i] = null;
        }
        wrs.clear();
        current = -1;
    }

    void close() {
        wrs.close();
    }

    private int current() {
        int c = current;
        if (c < 0) {
            throw new IllegalStateException("no work request begun");
        }
        return c;
    }
}
