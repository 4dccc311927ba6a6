/**
 * RFC 5531 §9 messages: constants ({@link dev.rpcrdma.oncrpc.message.MsgType},
 * {@link dev.rpcrdma.oncrpc.message.AcceptStat}, ...), headers ({@link dev.rpcrdma.oncrpc.message.RpcCall},
 * {@link dev.rpcrdma.oncrpc.message.RpcReply}), credentials, the reference-counted inbound/outbound messages and
 * {@link dev.rpcrdma.oncrpc.message.RpcMessageCodec}.
 */
package dev.rpcrdma.oncrpc.message;
