package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.fabric.CompletionArray;
import dev.rpcrdma.channel.fabric.CompletionQueue;
import dev.rpcrdma.channel.verbs.Verbs;
import dev.rpcrdma.channel.verbs.WorkCompletions;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** {@code ibv_cq}; completion arrays it hands out are native {@code ibv_wc} arrays freed with the queue. */
final class NativeCompletionQueue implements CompletionQueue {
    final long cq;
    private final int withInvalidateFlag;
    private final List<NativeCompletionArray> arrays = new ArrayList<>();
    private boolean closed;

    NativeCompletionQueue(long cq, int withInvalidateFlag) {
        this.cq = cq;
        this.withInvalidateFlag = withInvalidateFlag;
    }

    @Override
    public synchronized CompletionArray newCompletionArray(int capacity) {
        NativeCompletionArray a = new NativeCompletionArray(new WorkCompletions(capacity, withInvalidateFlag));
        arrays.add(a);
        return a;
    }

    @Override
    public int poll(CompletionArray out) throws IOException {
        return Verbs.pollCq(cq, ((NativeCompletionArray) out).wcs);
    }

    @Override
    public void requestNotify(boolean solicitedOnly) throws IOException {
        Verbs.reqNotifyCq(cq, solicitedOnly);
    }

    @Override
    public void ackEvents(int count) {
        Verbs.ackCqEvents(cq, count);
    }

    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        Verbs.destroyCq(cq);
        closed = true;
        for (NativeCompletionArray a : arrays) {
            a.wcs.close();
        }
        arrays.clear();
    }
}
