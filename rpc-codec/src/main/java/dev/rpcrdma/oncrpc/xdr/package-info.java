/**
 * XDR (RFC 4506): {@link dev.rpcrdma.oncrpc.xdr.XdrReader} (every variable-length item bounded before anything is
 * allocated; failures are {@link dev.rpcrdma.oncrpc.xdr.XdrException}), {@link dev.rpcrdma.oncrpc.xdr.XdrWriter},
 * and {@link dev.rpcrdma.oncrpc.xdr.XdrPayload} with its {@link dev.rpcrdma.oncrpc.xdr.DdpItem}s for RFC 8166 §3.4
 * direct data placement.
 *
 * <h2>Per-thread pools</h2>
 * {@link dev.rpcrdma.oncrpc.xdr.LocalPool} keeps a small stack per thread in front of Netty's {@code Recycler}. A
 * message made and released on one thread (an event loop decoding a call, dispatching it and sending its reply) goes
 * back onto that thread's stack and comes off it for the next one: an array push and pop, where the
 * {@code Recycler} claims and releases a handle. An object released on a thread whose stack is full, e.g. one made on
 * a worker thread and always released on an event loop, is recycled through its {@code Recycler.Handle} (once: it is
 * then out of every stack), which returns it to the pool of the thread that made it, so neither pattern allocates
 * per message. An object taken from a stack keeps the handle it was claimed with: it is claimed once however often
 * it passes through stacks, and recycled once. Threads that do not clean up their {@code FastThreadLocal}s (not
 * Netty's) keep no stack: there every object goes through the {@code Recycler}, so no application thread holds on to
 * this library's objects.
 */
package dev.rpcrdma.oncrpc.xdr;
