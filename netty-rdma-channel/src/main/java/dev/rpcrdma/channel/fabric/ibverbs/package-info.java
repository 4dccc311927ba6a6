/**
 * The native fabric: the fabric SPI mapped one-to-one onto the libibverbs/librdmacm bindings of
 * {@code dev.rpcrdma.channel.verbs} (registered as the {@code "native"} {@link dev.rpcrdma.channel.fabric.Fabric}
 * service, found by {@link dev.rpcrdma.channel.fabric.Fabrics}; {@code NativeProbe} decides whether it is usable
 * here, which {@code dev.rpcrdma.channel.Rdma} reports through the SPI). Internal: only {@code NativeFabric}, the
 * service, is public. It imports the SPI and the bindings, never the API.
 * Completion and CM event channel fds are made non-blocking so the event loop polls them after epoll readiness.
 * Device quirks handled here: rxe's Send-With-Invalidate completion flag and its not updating
 * {@code ibv_mw->rkey} after a bind.
 */
package dev.rpcrdma.channel.fabric.ibverbs;
