package dev.rpcrdma.benchmarks.vm;

import dev.rpcrdma.channel.RdmaReceive;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;

import java.util.concurrent.CompletableFuture;

/**
 * One in-loop ping-pong run, the transport-level counterpart of perftest's {@code ib_send_lat}: driven entirely on
 * the client channel's event loop, each echo's {@code channelRead} sending the next Send at once (no task, no
 * future, no other thread per round trip). Like perftest ({@code tposted[i]} before every {@code ibv_post_send},
 * round trip {@code i} = {@code tposted[i + 1] - tposted[i]}), it stamps {@link System#nanoTime()} just before each
 * send into a preallocated {@code long[]}, plus once after the last echo, so {@code stamps[i + 1] - stamps[i]} is
 * the whole round trip {@code i} including the client's receive handling. Every echo is compared with the sent
 * bytes (cheap next to a round trip: at most 1 KiB). Nothing is allocated per round trip here: the Send is a
 * retained duplicate of a pooled buffer (recycled), written with the void promise (a failed write reaches
 * {@link #fail} through {@code exceptionCaught}).
 *
 * <p>Confined to the client's event loop once {@link #start started}; {@link #done} completes there, with the number
 * of round trips, when {@code maxRoundTrips} are done or the deadline has passed.
 */
final class PingPong {

    private final ByteBuf data;
    private final long[] stamps;
    private final int maxRoundTrips;
    private final long deadlineNanos;
    private int completed;

    /** Completes with the number of round trips (stamps {@code 0..n} are valid), or fails on a wrong echo. */
    final CompletableFuture<Integer> done = new CompletableFuture<>();

    /**
     * @param data          the bytes to send (not consumed; the caller keeps and releases it)
     * @param stamps        {@code null} (warm-up: nothing recorded) or at least {@code maxRoundTrips + 1} long
     * @param deadlineNanos on the {@link System#nanoTime()} clock: no round trip is started after it
     */
    PingPong(ByteBuf data, long[] stamps, int maxRoundTrips, long deadlineNanos) {
        if (stamps != null && stamps.length < maxRoundTrips + 1) {
            throw new IllegalArgumentException("stamps must hold maxRoundTrips + 1 values");
        }
        this.data = data;
        this.stamps = stamps;
        this.maxRoundTrips = maxRoundTrips;
        this.deadlineNanos = deadlineNanos;
    }

    /** Sends the first Send; on the client's event loop. */
    void start(ChannelHandlerContext ctx) {
        send(ctx, System.nanoTime());
    }

    /**
     * One echo arrived (on the client's event loop; {@code r} is released here): checks it, then sends the next
     * Send or ends the run. Returns {@code true} when the run has ended.
     */
    boolean echoed(ChannelHandlerContext ctx, RdmaReceive r) {
        boolean same;
        try {
            same = ByteBufUtil.equals(data, r.content());
        } finally {
            r.release();
        }
        long now = System.nanoTime();
        if (!same) {
            return fail(new IllegalStateException("echoed bytes differ (round trip " + completed + ")"));
        }
        completed++;
        if (completed >= maxRoundTrips || now - deadlineNanos >= 0) {
            if (stamps != null) {
                stamps[completed] = now;
            }
            done.complete(completed);
            return true;
        }
        send(ctx, now);
        return false;
    }

    /** Ends the run with {@code cause}; returns {@code true}. */
    boolean fail(Throwable cause) {
        done.completeExceptionally(cause);
        return true;
    }

    private void send(ChannelHandlerContext ctx, long now) {
        if (stamps != null) {
            stamps[completed] = now;
        }
        ctx.writeAndFlush(data.retainedDuplicate(), ctx.voidPromise());
    }
}
