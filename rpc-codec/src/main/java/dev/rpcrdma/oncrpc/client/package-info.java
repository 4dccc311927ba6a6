/**
 * Client side: {@link dev.rpcrdma.oncrpc.client.RpcClient} (asynchronous: many calls in flight on one connection,
 * futures completed on its event loop) and {@link dev.rpcrdma.oncrpc.client.BlockingRpcClient} (one call at a time,
 * the connection's I/O run on the calling thread), both over a connection whose pipeline ends with an
 * {@link dev.rpcrdma.oncrpc.client.RpcClientHandler}; results decoded by an
 * {@link dev.rpcrdma.oncrpc.client.RpcReplyDecoder}; failures are {@link dev.rpcrdma.oncrpc.client.RpcException}s.
 *
 * <h2>Call timeouts</h2>
 * {@code CallTimeouts} links one connection's pending calls in deadline order (a call with the usual timeout goes
 * to the tail in O(1)) and sweeps them with one task, never one per call; a call that completes is unlinked.
 *
 * <p>On an event loop that runs on the system clock (every real loop) deadlines are ticks of the JVM's
 * {@code TimeoutSweeper}: a call reads the current tick and jump from a field (no clock read, no system call), and
 * its connection publishes its earliest deadline to the sweeper, whose daemon thread asks the loop for a sweep when
 * it has come. The published deadline is only moved earlier by a call; a call answered before it leaves it stale,
 * and the sweep it brings (at most once per timeout period) publishes the next one. So the loop has no scheduled
 * task for timeouts (Netty's loop reads the clock on every iteration while it has one, and twice more before it
 * sleeps).
 *
 * <p>Ticks are counted, not read from the clock. Calls read the current tick together with the most ticks the next
 * pass may count at once (the jump); a pass counts the ticks that passed since the last one, but never more than
 * that jump, so a call whose deadline is its tick + its timeout in ticks + the jump never times out early, and a
 * starved thread makes calls late, never early. The jump is 1/16 of the shortest timeout any call of the JVM used,
 * between 1 tick and 1 s, and the thread sleeps that many ticks between passes (less when a published deadline is
 * nearer): with the default 30 s timeout it wakes once a second and a call times out at most about 1 s after its
 * timeout; with timeouts under 160 ms it ticks every 10 ms and a call is at most about 20 ms late. The thread parks
 * without a deadline while no connection has one published, and a connection that publishes one wakes it.
 *
 * <p>On any other loop ({@code EmbeddedChannel}'s, whose clock tests move) deadlines are nanoseconds of the loop's
 * {@code Ticker}: one scheduled task is armed for the earliest and re-armed when it fires; a completed call leaves it
 * to fire rather than cancelling it.
 */
package dev.rpcrdma.oncrpc.client;
