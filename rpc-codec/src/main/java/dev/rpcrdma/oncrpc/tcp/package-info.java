/**
 * Stream transport (RFC 5531 §11 record marking): TCP on Netty NIO or epoll, or AF_UNIX. Use
 * {@link dev.rpcrdma.oncrpc.tcp.TcpRpcServerInitializer} / {@link dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer}.
 */
package dev.rpcrdma.oncrpc.tcp;
