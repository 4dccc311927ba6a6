/**
 * Client side: {@link dev.rpcrdma.oncrpc.client.RpcClient} (asynchronous: many calls in flight on one connection,
 * futures completed on its event loop) and {@link dev.rpcrdma.oncrpc.client.BlockingRpcClient} (one call at a time,
 * the connection's I/O run on the calling thread), both over a connection whose pipeline ends with an
 * {@link dev.rpcrdma.oncrpc.client.RpcClientHandler}; results decoded by an
 * {@link dev.rpcrdma.oncrpc.client.RpcReplyDecoder}; failures are {@link dev.rpcrdma.oncrpc.client.RpcException}s.
 */
package dev.rpcrdma.oncrpc.client;
