package dev.rpcrdma.benchmarks.vm;

import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The JUCX peer's server side: echoes every tagged message back to the client with the sender's tag, from
 * {@code slots} receive buffers posted at once (one per message the client may have in flight). Runs on its own
 * thread, which owns the worker and busy-polls it ({@code worker.progress()} in a loop, as UCX's own benchmarks
 * and a latency-minded JUCX application do). Completions only queue their slot; the loop posts the next request
 * after {@code progress()} returns.
 */
final class JucxEchoServer implements Runnable {

    /** One receive buffer, received into, then sent back from, then posted again. */
    private final class Slot extends UcxCallback {
        final ByteBuffer buffer;
        boolean sending;
        long size;
        long tag;

        Slot(int size) {
            buffer = ByteBuffer.allocateDirect(size);
        }

        void receive() {
            sending = false;
            worker.recvTaggedNonBlocking(buffer, 0, 0, this);
        }

        @Override
        public void onSuccess(UcpRequest request) {
            if (!sending) {
                size = request.getRecvSize();
                tag = request.getSenderTag();
            }
            ready.add(this);
        }

        @Override
        public void onError(int status, String message) {
            if (running) {
                failure = new IllegalStateException("JUCX server request failed: " + status + " " + message);
                running = false;
            }
        }
    }

    private final UcpWorker worker;
    private final UcpEndpoint endpoint;
    private final ArrayDeque<Slot> ready = new ArrayDeque<>();
    private final Slot[] slots;
    private volatile boolean running = true;
    private volatile RuntimeException failure;

    /** Serves on {@code worker} (owned by the thread that runs this), replying through {@code endpoint}. */
    JucxEchoServer(UcpWorker worker, UcpEndpoint endpoint, int slots, int maxSize) {
        this.worker = worker;
        this.endpoint = endpoint;
        this.slots = new Slot[slots];
        for (int i = 0; i < slots; i++) {
            this.slots[i] = new Slot(maxSize);
        }
    }

    @Override
    public void run() {
        for (Slot s : slots) {
            s.receive();
        }
        try {
            while (running) {
                worker.progress();
                Slot s;
                while ((s = ready.poll()) != null) {
                    if (s.sending) {
                        s.receive();
                    } else {
                        s.sending = true;
                        ByteBuffer reply = s.buffer.duplicate();
                        reply.clear().limit((int) s.size);
                        endpoint.sendTaggedNonBlocking(reply, s.tag, s);
                    }
                }
            }
        } catch (Exception e) {
            failure = new IllegalStateException("JUCX server loop failed", e);
        }
    }

    /** Stops the loop (the thread returns after its current {@code progress()}). */
    void stop() {
        running = false;
    }

    /** Throws what failed the server, if anything did. */
    void check() {
        RuntimeException f = failure;
        if (f != null) {
            throw f;
        }
    }
}
