/**
 * ONC RPC version 2 (RFC 5531) and XDR (RFC 4506) for Netty, independent of the transport.
 *
 * <ul>
 *   <li>{@link dev.rpcrdma.oncrpc.xdr}: bounded XDR reader/writer and {@code XdrPayload}, an outbound stream of
 *       plain segments and DDP-eligible items (what RPC-over-RDMA chunk reduction, RFC 8166 §3.4, needs);</li>
 *   <li>{@link dev.rpcrdma.oncrpc.message}: protocol constants as value classes, call/reply headers, inbound and
 *       outbound messages, and {@code RpcMessageCodec}: plain encode/decode functions any transport calls;</li>
 *   <li>{@link dev.rpcrdma.oncrpc.server}: program registry and the dispatcher (RFC 5531 §9 answers);</li>
 *   <li>{@link dev.rpcrdma.oncrpc.client}: xids, pending calls, timeouts;</li>
 *   <li>{@link dev.rpcrdma.oncrpc.tcp}: RFC 5531 §11 record marking and the stream pipelines (TCP on NIO or
 *       epoll, AF_UNIX); an RPC-over-RDMA transport replaces only this package's handlers;</li>
 *   <li>{@link dev.rpcrdma.oncrpc.rpcbind}: rpcbind/portmapper client (RFC 1833) for registration.</li>
 * </ul>
 * The dispatcher and the client handler see only {@code InboundRpcMessage} / {@code OutboundRpcMessage}, so user
 * procedures never know which transport carries them.
 */
package dev.rpcrdma.oncrpc;
