package dev.rpcrdma.oncrpc4j;

import dev.rpcrdma.handlers.ByteFramingEntry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.ObjectUtil;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcAuthError;
import org.dcache.oncrpc4j.rpc.RpcAuthException;
import org.dcache.oncrpc4j.rpc.RpcAuthStat;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;

/**
 * oncrpc4j's {@link RpcTransport} on one Netty channel (RPC-over-RDMA through the byte framing, or TCP with record
 * marking): {@link #send} writes the {@link Xdr}'s encoded message as one {@code ByteBuf} (a view of the Xdr's heap
 * bytes, as oncrpc4j's own transport writes the Xdr's buffer itself), from the bridge handler's context (over RDMA
 * straight into the byte framing's responder when nothing sits between them), and completes the handler when the
 * write did (with its size), or fails it when the write failed or the channel is closed. Calls and replies
 * travel both ways on the same connection: {@link #getPeerTransport()} is this transport (same connection, same
 * reply queue), which is how nfs4j's {@code ClientCB} reaches the client for CB_COMPOUND; over RDMA those backward
 * calls use the RFC 8167 backchannel. TLS is not offered (RPC-over-RDMA has no RPC-with-TLS binding): a call
 * with an AUTH_TLS credential (RFC 9289 §4.1, the probe a client sends before starting TLS) is refused the way
 * oncrpc4j's own transport refuses it when TLS is not configured, MSG_DENIED with AUTH_ERROR and AUTH_FAILED, and the
 * connection stays.
 * Thread-safe (Netty serializes the writes).
 */
final class NettyRpcTransport implements RpcTransport {

    /** The bridge handler's context: messages are written from it, not through the pipeline's tail. */
    private final ChannelHandlerContext ctx;
    private final Channel channel;
    private final ReplyQueue replyQueue;
    /** The byte framing's responder, or null (TCP, a client): replies go straight into it where that is the same. */
    private final ByteFramingEntry entry;

    NettyRpcTransport(ChannelHandlerContext ctx, ReplyQueue replyQueue, ByteFramingEntry entry) {
        this.ctx = ObjectUtil.checkNotNull(ctx, "ctx");
        this.entry = entry;
        this.channel = ctx.channel();
        this.replyQueue = ObjectUtil.checkNotNull(replyQueue, "replyQueue");
    }

    Channel channel() {
        return channel;
    }

    @Override
    public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        ObjectUtil.checkNotNull(handler, "handler");
        Buffer buffer = xdr.asBuffer();
        int length = buffer.remaining();
        ByteBuf out;
        if (buffer.hasArray()) {
            // The Xdr's own heap bytes, not a copy: oncrpc4j's Grizzly transport writes the same Buffer as it is.
            // One object: the whole array, its indices on the message (a slice would add a second).
            int start = buffer.arrayOffset() + buffer.position();
            out = Unpooled.wrappedBuffer(buffer.array()).setIndex(start, start + length);
        } else { // a composite (an Xdr that carried a file chunk): its bytes copied once
            ByteBuffer bytes = buffer.toByteBuffer();
            out = ctx.alloc().buffer(length);
            out.writeBytes(bytes.duplicate());
        }
        ChannelPromise written = ctx.newPromise();
        ByteFramingEntry e = entry;
        if (e == null || !e.writeAndFlush(ctx, out, written)) { // straight into the responder where provably the same
            ctx.writeAndFlush(out, written);
        }
        if (written.isDone()) {
            // On the event loop (a program run there, SAME_THREAD) the write is usually done here: no listener.
            complete(written, length, attachment, handler);
        } else {
            written.addListener(f -> complete(f, length, attachment, handler));
        }
    }

    private static <A> void complete(Future<?> f, int length, A attachment,
                                     CompletionHandler<Integer, ? super A> handler) {
        if (f.isSuccess()) {
            handler.completed(length, attachment);
        } else {
            handler.failed(f.cause(), attachment);
        }
    }

    @Override
    public ReplyQueue getReplyQueue() {
        return replyQueue;
    }

    @Override
    public boolean isOpen() {
        return channel.isActive();
    }

    @Override
    public InetSocketAddress getLocalSocketAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    public InetSocketAddress getRemoteSocketAddress() {
        return (InetSocketAddress) channel.remoteAddress();
    }

    @Override
    public RpcTransport getPeerTransport() {
        return this;
    }

    /**
     * Refuses, as oncrpc4j's Grizzly transport does without TLS configured: {@code RpcCall.accept()} turns the
     * {@link RpcAuthException} into an AUTH_ERROR reply (AUTH_FAILED) to the AUTH_TLS probe. An unchecked exception
     * here would escape the dispatch loop and close the connection.
     */
    @Override
    public void startTLS() throws RpcAuthException {
        throw new RpcAuthException("RPC-with-TLS is not available on " + channel
                + " (no TLS binding for RPC-over-RDMA; the oncrpc4j bridge offers none over TCP either)",
                new RpcAuthError(RpcAuthStat.AUTH_FAILED));
    }

    @Override
    public boolean isTLS() {
        return false;
    }

    @Override
    public String toString() {
        return "NettyRpcTransport(" + channel + ')';
    }
}
