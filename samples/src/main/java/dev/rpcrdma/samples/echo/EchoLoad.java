package dev.rpcrdma.samples.echo;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaException;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcCallListener;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcReplyDecoder;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A closed-loop load: {@code concurrency} lanes, each with one call in flight, spread round-robin over the
 * connections; a lane sends its next call from the completion of the previous one (on the connection's event
 * loop). Every ECHO carries a distinct payload (a shared random pattern stamped with the call's sequence number)
 * and every echoed byte is compared with it. Stops at the first failure or mismatch. Both go through the listener
 * form of {@link RpcClient#call}, one listener (and for ECHO one decoder, which compares the echoed bytes) per lane,
 * reused: no future and no callback per call.
 */
final class EchoLoad {

    /**
     * Calls of one warm-up round at most: the client warms up in rounds of {@link #run}, so that what a run's start
     * and end do (a task submitted to each event loop from another thread, the loop idle then woken, a first call
     * flushed outside a read, the last completion starting no call) is common in the profile the JIT compiles
     * from, not a branch it never saw taken at the measured run's start.
     */
    static final int WARMUP_ROUND = 1000;

    /** What a run did. */
    static final class Result {
        final long completed;
        final long mismatches;
        final Throwable failure;
        final long elapsedNanos;
        /** {@link System#nanoTime()} when the run started (its lanes handed to the event loops). */
        final long startNanos;

        Result(long completed, long mismatches, Throwable failure, long startNanos, long elapsedNanos) {
            this.completed = completed;
            this.mismatches = mismatches;
            this.failure = failure;
            this.startNanos = startNanos;
            this.elapsedNanos = elapsedNanos;
        }

        boolean ok() {
            return failure == null && mismatches == 0;
        }
    }

    private final List<RpcClient> clients;
    private final EchoOptions.Procedure procedure;
    private final int size;
    private final CallOptions options;
    private final int concurrency;
    private final byte[] pattern;

    EchoLoad(List<RpcClient> clients, EchoOptions.Procedure procedure, int size, CallOptions options,
             int concurrency) {
        this.clients = List.copyOf(clients);
        this.procedure = procedure;
        this.size = size;
        this.options = options;
        this.concurrency = concurrency;
        pattern = new byte[procedure == EchoOptions.Procedure.ECHO ? size : 0];
        ThreadLocalRandom.current().nextBytes(pattern);
    }

    /**
     * Makes {@code calls} calls; records each round trip in {@code latencies} (if not null: a warm-up should record
     * too, into a histogram it drops, so that the measured calls run the code it compiled, and run in rounds: see
     * {@link #WARMUP_ROUND}); blocks until done.
     */
    Result run(long calls, LatencyHistogram latencies) throws InterruptedException {
        if (calls <= 0) {
            return new Result(0, 0, null, System.nanoTime(), 0);
        }
        int lanes = (int) Math.min(concurrency, calls);
        Run run = new Run(calls, lanes, latencies);
        long start = System.nanoTime();
        for (int i = 0; i < lanes; i++) {
            Lane lane = new Lane(run, clients.get(i % clients.size()));
            lane.client.channel().eventLoop().execute(lane::next);
        }
        run.done.await();
        return new Result(run.completed.get(), run.mismatches.get(), run.failure.get(), start,
                System.nanoTime() - start);
    }

    /** One call in flight at a time on one connection; its own NULL listener, and its ECHO calls'. */
    private final class Lane implements RpcCallListener<Void> {
        final Run run;
        final RpcClient client;
        final EchoCalls echo;
        long start;

        Lane(Run run, RpcClient client) {
            this.run = run;
            this.client = client;
            this.echo = procedure == EchoOptions.Procedure.NULL ? null : new EchoCalls(run, client);
        }

        void next() {
            if (echo != null) {
                echo.next();
                return;
            }
            if (!run.more()) {
                return;
            }
            start = System.nanoTime();
            try {
                client.call(EchoProgram.PROGRAM, EchoProgram.VERSION, 0, XdrPayload.empty(), RpcReplyDecoder.VOID,
                        CallOptions.NULL_CALL, this);
            } catch (Throwable t) {
                onFailure(t);
            }
        }

        @Override
        public void onResult(Void result) {
            run.completed(System.nanoTime() - start);
            next();
        }

        @Override
        public void onFailure(Throwable cause) {
            run.failure.compareAndSet(null, cause);
            run.done.countDown();
        }
    }

    private final class Run {
        final long calls;
        final LatencyHistogram latencies;
        final CountDownLatch done;
        final AtomicLong issued = new AtomicLong();
        final AtomicLong completed = new AtomicLong();
        final AtomicLong mismatches = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        Run(long calls, int lanes, LatencyHistogram latencies) {
            this.calls = calls;
            this.latencies = latencies;
            this.done = new CountDownLatch(lanes);
        }

        /** Whether the lane makes another call; false: it has ended (counted down). */
        boolean more() {
            if (issued.getAndIncrement() >= calls || failure.get() != null || mismatches.get() != 0) {
                done.countDown();
                return false;
            }
            return true;
        }

        void completed(long rtt) {
            if (latencies != null) {
                latencies.record(rtt);
            }
            completed.incrementAndGet();
        }
    }

    /**
     * A lane's ECHO calls: the listener of each and the decoder of its reply, kept for every call. Each call's
     * payload is a fresh buffer stamped with its sequence number; {@link #expected} (a retained duplicate of it) is
     * what the reply must carry, compared byte for byte ({@link EchoProgram#sameBytes}) and released once the call
     * ended, whichever way.
     */
    private final class EchoCalls implements RpcCallListener<Boolean>, RpcReplyDecoder<Boolean> {
        final Run run;
        final RpcClient client;
        final CallOptions echoOptions;
        ByteBuf expected;
        long start;

        EchoCalls(Run run, RpcClient client) {
            this.run = run;
            this.client = client;
            this.echoOptions = EchoProgram.echoOptions(options, size);
        }

        /** Sends the lane's next ECHO call, or ends the lane. */
        void next() {
            long seq = run.issued.getAndIncrement();
            if (seq >= run.calls || run.failure.get() != null || run.mismatches.get() != 0) {
                run.done.countDown();
                return;
            }
            XdrPayload args;
            try {
                ByteBuf data = payloadBuffer(client, size);
                data.writeBytes(pattern);
                if (size >= Long.BYTES) {
                    // Each call's payload differs: a reply to another call cannot pass as this one's.
                    data.setLong(0, seq);
                }
                expected = data.retainedDuplicate();
                try {
                    args = client.newPayload().writeDdpOpaque(data);
                } catch (Throwable t) {
                    data.release();
                    throw t;
                }
            } catch (Throwable t) {
                onFailure(t);
                return;
            }
            start = System.nanoTime();
            try {
                client.call(EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_ECHO, args, this, echoOptions,
                        this);
            } catch (Throwable t) {
                onFailure(t);
            }
        }

        @Override
        public Boolean decode(XdrReader results) throws XdrException {
            ByteBuf echoed = results.readDdpOpaque(size);
            try {
                return EchoProgram.sameBytes(expected, echoed);
            } finally {
                echoed.release();
            }
        }

        @Override
        public void onResult(Boolean verified) {
            long rtt = System.nanoTime() - start;
            releaseExpected();
            if (!verified) {
                run.mismatches.incrementAndGet();
                run.done.countDown();
                return;
            }
            run.completed(rtt);
            next();
        }

        @Override
        public void onFailure(Throwable cause) {
            releaseExpected();
            run.failure.compareAndSet(null, cause);
            run.done.countDown();
        }

        private void releaseExpected() {
            ByteBuf e = expected;
            if (e != null) {
                expected = null;
                e.release();
            }
        }
    }

    /**
     * A buffer for one call's ECHO argument. Over RDMA it is a piece of the connection's registered memory pool: the
     * transport then exposes it in a Read chunk where it is, with no copy (RFC 8166 §3.4.5), and the server echoes it
     * back out of its own pool the same way; when the pool is full, for arguments that go inline anyway (under
     * 4 KiB, the default inline threshold), or over TCP, the channel's allocator serves it.
     */
    static ByteBuf payloadBuffer(RpcClient client, int size) throws RdmaException {
        if (size >= 4096 && client.channel() instanceof RdmaChannel) {
            ByteBuf piece = ((RdmaChannel) client.channel()).memoryPool().tryAllocate(size);
            if (piece != null) {
                return piece;
            }
        }
        return client.alloc().buffer(size);
    }
}
