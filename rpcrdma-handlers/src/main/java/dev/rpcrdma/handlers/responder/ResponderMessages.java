package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

import java.util.List;

/** Calls handed up as decoded {@link InboundRpcMessage}s; replies are {@code OutboundRpcMessage}s. */
final class ResponderMessages implements ResponderForm {

    private final RpcRdmaResponder responder;
    private final RpcStats rpcStats;

    ResponderMessages(RpcRdmaResponder responder, RpcStats rpcStats) {
        this.responder = responder;
        this.rpcStats = rpcStats;
    }

    @Override
    public boolean contiguous() {
        return false;
    }

    @Override
    public void deliver(ChannelHandlerContext ctx, ResponderCall call, ByteBuf stream) {
        InboundRpcMessage message;
        try {
            message = RpcMessageCodec.decode(stream, List.of());
        } catch (XdrException e) {
            rpcStats.recordMalformedMessage();
            responder.refuse(ctx, call, "undecodable RPC message: " + e.getMessage());
            return;
        }
        if (!(message.header() instanceof RpcCall)) {
            message.release();
            rpcStats.recordUnexpectedMessage();
            responder.refuse(ctx, call, "a responder received an RPC reply");
            return;
        }
        call.delivered = true;
        responder.fireCall(ctx, message.reducedBytes(call.reducedBytes()).replyEntry(responder));   // RPCSEC_GSS checks it (RFC 8166 §8.2.2)
    }

    @Override
    public boolean write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        return false;
    }
}
