package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/** A {@link SendChain} staged in {@link SendWorkRequest}s and posted by {@link QueuePair#postSend(SendWorkRequest[], int)}. */
public final class StagedSendChain implements SendChain {
    private final QueuePair qp;
    private final SendWorkRequest[] chain = new SendWorkRequest[QueuePair.MAX_POST_CHAIN];
    private int count;
    private SendWorkRequest current;

    public StagedSendChain(QueuePair qp) {
        this.qp = qp;
        for (int i = 0; i < chain.length; i++) {
            chain[i] = new SendWorkRequest();
        }
    }

    @Override
    public void begin(long wrId, int sendFlags) {
        if (count == chain.length) {
            throw new IllegalStateException("all " + chain.length + " work requests in use");
        }
        current = chain[count++].clear().wrId(wrId).sendFlags(sendFlags);
    }

    @Override
    public void restart(long wrId, int sendFlags) {
        current().clear().wrId(wrId).sendFlags(sendFlags);
    }

    @Override
    public void opcode(int opcode) {
        current().opcode(opcode);
    }

    @Override
    public int sendFlags() {
        return current().sendFlags();
    }

    @Override
    public void sendFlags(int sendFlags) {
        current().sendFlags(sendFlags);
    }

    @Override
    public void addSge(long address, int length, int lkey) {
        current().addSge(address, length, lkey);
    }

    @Override
    public int numSge() {
        return current().numSge();
    }

    @Override
    public void remote(long remoteAddress, int rkey) {
        current().remote(remoteAddress, rkey);
    }

    @Override
    public void invalidateRkey(int rkey) {
        current().invalidateRkey(rkey);
    }

    @Override
    public void bind(MemoryWindow window, int newRkey, MemoryRegion region, long address, long length, int access) {
        current().bind(window, newRkey, region, address, length, access);
    }

    @Override
    public int count() {
        return count;
    }

    @Override
    public void post() throws IOException {
        int n = count;
        clear();
        if (n > 0) {
            qp.postSend(chain, n);
        }
    }

    @Override
    public void clear() {
        count = 0;
        current = null;
    }

    private SendWorkRequest current() {
        SendWorkRequest c = current;
        if (c == null) {
            throw new IllegalStateException("no work request begun");
        }
        return c;
    }
}
