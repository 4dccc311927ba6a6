package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.fabric.CompletionChannel;
import dev.rpcrdma.channel.fabric.CompletionQueue;
import dev.rpcrdma.channel.verbs.Verbs;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** {@code ibv_comp_channel} with a non-blocking fd. */
final class NativeCompletionChannel implements CompletionChannel {
    final long channel;
    final Map<Long, NativeCompletionQueue> queues = new ConcurrentHashMap<>();
    private boolean closed;

    NativeCompletionChannel(long channel) {
        this.channel = channel;
    }

    @Override
    public int fd() {
        return Verbs.compChannelFd(channel);
    }

    @Override
    public CompletionQueue getEvent() throws IOException {
        if (closed) {
            return null; // never ibv_get_cq_event on a destroyed channel
        }
        long cq = Verbs.getCqEvent(channel);
        return cq == 0 ? null : queues.get(cq);
    }

    @Override
    public void close() throws IOException {
        if (!closed) {
            Verbs.destroyCompChannel(channel);
            closed = true;
        }
    }
}
