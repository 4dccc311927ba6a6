/**
 * Client side: {@link dev.rpcrdma.oncrpc.client.RpcClient} over one connection whose pipeline ends with an
 * {@link dev.rpcrdma.oncrpc.client.RpcClientHandler}; results decoded by an
 * {@link dev.rpcrdma.oncrpc.client.RpcReplyDecoder}; failures are {@link dev.rpcrdma.oncrpc.client.RpcException}s.
 */
package dev.rpcrdma.oncrpc.client;
