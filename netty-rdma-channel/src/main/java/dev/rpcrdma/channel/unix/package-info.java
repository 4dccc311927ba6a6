/**
 * Internal, not API: the libc calls of every layer of the transport (epoll, eventfd, {@code fcntl}, {@code poll},
 * {@code strerror}), as Netty's {@code io.netty.channel.unix}. Imports nothing of the transport.
 */
package dev.rpcrdma.channel.unix;
