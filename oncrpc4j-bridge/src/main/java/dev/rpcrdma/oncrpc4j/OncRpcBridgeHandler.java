package dev.rpcrdma.oncrpc4j;

import dev.rpcrdma.handlers.ByteFramingEntry;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.dcache.oncrpc4j.rpc.OncRpcAcceptedException;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcRejectedException;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcAccepsStatus;
import org.dcache.oncrpc4j.rpc.RpcAuthType;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcException;
import org.dcache.oncrpc4j.rpc.RpcMessageType;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.rpc.gss.GssProtocolFilter;
import org.dcache.oncrpc4j.rpc.gss.GssSessionManager;
import org.dcache.oncrpc4j.rpc.gss.RpcGssCall;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Proxy;
import java.nio.ByteOrder;
import java.nio.channels.CompletionHandler;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;

/**
 * oncrpc4j's dispatch loop on one connection, above a framing that hands up whole RPC messages as {@code ByteBuf}s
 * (the RPC-over-RDMA byte framing, or TCP record marking). Each message's bytes are copied into a fresh
 * {@link Xdr} (the call's reply reuses it, as oncrpc4j does) and the buffer released at once. A CALL is accepted
 * ({@code RpcCall.accept()}: RPC version and authentication, rejected with oncrpc4j's own replies) and dispatched to
 * its program's {@link RpcDispatchable} on the executor (oncrpc4j's WORKER_THREAD), or right there on the event loop
 * without an executor (SAME_THREAD), or answered PROG_UNAVAIL; a program's exception becomes
 * oncrpc4j's reply for it (its {@code RpcException}'s rejection; GARBAGE_ARGS for XDR and I/O errors; SYSTEM_ERR for
 * anything else, logged), and the connection stays up. A REPLY completes the call it answers through the
 * connection's {@link ReplyQueue}, as oncrpc4j's {@code RpcProtocolFilter} does. When the connection goes, calls
 * still waiting for replies fail ({@code ReplyQueue.handleDisconnect}).
 */
final class OncRpcBridgeHandler extends ChannelInboundHandlerAdapter {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(OncRpcBridgeHandler.class);

    /**
     * The Grizzly connection of the filter chain context oncrpc4j's GSS filter runs in: there is none here (the
     * filter reads and writes only the message, and replies through the call's transport), so every method answers
     * a default.
     */
    private static final Connection NO_CONNECTION = (Connection) Proxy.newProxyInstance(
            Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                switch (method.getName()) {
                    case "toString":
                        return "no connection (RPC-over-RDMA / Netty bridge)";
                    case "hashCode":
                        return System.identityHashCode(proxy);
                    case "equals":
                        return proxy == args[0];
                    default:
                        Class<?> t = method.getReturnType();
                        return t == boolean.class ? Boolean.FALSE : t == int.class ? 0 : t == long.class ? 0L : null;
                }
            });

    /** RFC 5531 §9: the RPC version of every call. */
    private static final int RPC_VERSION = 2;
    /**
     * The fixed part of a call with empty AUTH_NONE credential and verifier: xid, msg_type, rpcvers, prog, vers,
     * proc, then flavor and length twice (RFC 5531 §9).
     */
    private static final int PLAIN_CALL_HEADER = 40;
    /** XDR's big-endian words in a byte array. */
    private static final VarHandle WORD = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    private final Map<OncRpcProgram, RpcDispatchable> programs;
    /**
     * The credential of every call with an empty AUTH_NONE credential and verifier, what oncrpc4j decodes of one
     * (no body, an AUTH_NONE verifier without body); nothing changes it after its decoding.
     */
    private final RpcAuthTypeNone authNone = new RpcAuthTypeNone();
    /** The program last found for {@link #lastNumber} and {@link #lastVersion} (event loop), or null. */
    private RpcDispatchable lastProgram;
    private int lastNumber;
    private int lastVersion;
    /** Where programs run; null: on the event loop, in {@code channelRead} (SAME_THREAD). */
    private final ExecutorService executor;
    private final ReplyQueue replyQueue = new ReplyQueue();
    /** oncrpc4j's RPCSEC_GSS filter over the bridge's session manager, or null. */
    private final GssProtocolFilter gss;
    private NettyRpcTransport transport;

    OncRpcBridgeHandler(Map<OncRpcProgram, RpcDispatchable> programs, ExecutorService executor) {
        this(programs, executor, null);
    }

    OncRpcBridgeHandler(Map<OncRpcProgram, RpcDispatchable> programs, ExecutorService executor,
                        GssSessionManager gssSessionManager) {
        this.programs = programs;
        this.executor = executor;
        this.gss = gssSessionManager != null ? new GssProtocolFilter(gssSessionManager) : null;
    }

    /** The connection's transport (after the handler was added). */
    NettyRpcTransport transport() {
        return transport;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        ByteFramingEntry entry = null;
        for (Map.Entry<String, ChannelHandler> e : ctx.pipeline()) {
            if (e.getValue() instanceof ByteFramingEntry) {
                entry = (ByteFramingEntry) e.getValue();
                break;
            }
        }
        transport = new NettyRpcTransport(ctx, replyQueue, entry);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf)) {
            ctx.fireChannelRead(msg);
            return;
        }
        ByteBuf buf = (ByteBuf) msg;
        byte[] bytes;
        try {
            bytes = new byte[buf.readableBytes()]; // bounded by the framing's largest message
            buf.getBytes(buf.readerIndex(), bytes);
        } finally {
            buf.release();
        }
        Xdr xdr = new Xdr(bytes);
        try {
            xdr.beginDecoding();
            int xid = xdr.xdrDecodeInt();
            int type = xdr.xdrDecodeInt();
            if (type == RpcMessageType.CALL) {
                RpcCall plain = plainCall(xid, bytes, xdr);
                call(ctx, plain != null ? plain : new RpcCall(xid, xdr, transport), plain != null);
            } else if (type == RpcMessageType.REPLY) {
                reply(ctx, xid, new RpcReply(xid, xdr, transport));
            } else {
                logger.warn("{} dropped a message of msg_type {} (RFC 5531 §9)", ctx.channel(), type);
            }
        } catch (IOException e) { // OncRpcException (bad XDR) included
            logger.warn("{} dropped an undecodable RPC message: {}", ctx.channel(), e.toString());
        }
    }

    /**
     * The call in {@code bytes} accepted as {@code RpcCall.accept()} would accept it, when its header is the common
     * one (RPC version 2, an AUTH_NONE credential and verifier with empty bodies, RFC 5531 §8.1, §9): the RpcCall
     * oncrpc4j's {@code accept()} makes of it, with the connection's one AUTH_NONE credential rather than a new one
     * and its two verifiers; {@code xdr} positioned at the arguments. Null for any other call (too short, another
     * version or flavor, a body): {@code accept()} decodes and judges it.
     */
    private RpcCall plainCall(int xid, byte[] bytes, Xdr xdr) {
        if (bytes.length < PLAIN_CALL_HEADER
                || (int) WORD.get(bytes, 8) != RPC_VERSION
                || ((int) WORD.get(bytes, 24) | (int) WORD.get(bytes, 28) | (int) WORD.get(bytes, 32)
                    | (int) WORD.get(bytes, 36)) != 0) {
            return null;
        }
        xdr.asBuffer().position(PLAIN_CALL_HEADER);
        return new RpcCall(xid, (int) WORD.get(bytes, 12), (int) WORD.get(bytes, 16), (int) WORD.get(bytes, 20),
                authNone, xdr, transport);
    }

    private void call(ChannelHandlerContext ctx, RpcCall call, boolean accepted) throws IOException {
        if (!accepted) {
            try {
                call.accept();
            } catch (RpcException e) {
                call.reject(e.getStatus(), e.getRpcReply());
                logger.info("{} rejected an RPC call: {}", ctx.channel(), e.getMessage());
                return;
            }
        }
        if (gss != null && call.getCredential().type() == RpcAuthType.RPCGSS_SEC) {
            if (executor == null) {
                authenticateAndDispatch(ctx, call); // SAME_THREAD: the user's choice, GSS work included
                return;
            }
            try {
                executor.execute(() -> authenticateAndDispatch(ctx, call));
            } catch (RejectedExecutionException e) {
                logger.warn("{} answering SYSTEM_ERR: the executor refused the call {}", ctx.channel(), call);
                call.failRpcSystem();
            }
            return;
        }
        RpcDispatchable program = program(call.getProgram(), call.getProgramVersion());
        if (program == null) {
            call.failProgramUnavailable();
            return;
        }
        if (executor == null) {
            dispatch(program, call); // SAME_THREAD: no hand-off, no wake-up of another thread
            return;
        }
        try {
            executor.execute(() -> dispatch(program, call));
        } catch (RejectedExecutionException e) {
            logger.warn("{} answering SYSTEM_ERR: the executor refused the call {}", ctx.channel(), call);
            call.failRpcSystem();
        }
    }

    /**
     * The program serving {@code number} and {@code version}, or null: the last one found is kept (the programs never
     * change), so a connection's calls to one program look it up once. Event loop only.
     */
    private RpcDispatchable program(int number, int version) {
        RpcDispatchable p = lastProgram;
        if (p != null && number == lastNumber && version == lastVersion) {
            return p;
        }
        p = programs.get(new OncRpcProgram(number, version));
        if (p != null) {
            lastNumber = number;
            lastVersion = version;
            lastProgram = p;
        }
        return p;
    }

    /**
     * oncrpc4j's {@link GssProtocolFilter} on one RPCSEC_GSS call, as its Grizzly chain runs it between
     * {@code RpcProtocolFilter} and {@code RpcDispatcher}: context creation and destruction are answered by the
     * filter; a DATA call it accepts comes back as an {@code RpcGssCall} (its arguments unwrapped, its replies
     * protected) and goes to its program; one it refuses was answered (or dropped) by the filter.
     */
    private void authenticateAndDispatch(ChannelHandlerContext ctx, RpcCall call) {
        try {
            FilterChainContext chain = FilterChainContext.create(NO_CONNECTION);
            chain.setMessage(call);
            NextAction next = gss.handleRead(chain);
            if (next.type() != chain.getInvokeAction().type() || !(chain.getMessage() instanceof RpcGssCall)) {
                return;
            }
            RpcGssCall authenticated = (RpcGssCall) chain.getMessage();
            RpcDispatchable program = programs.get(new OncRpcProgram(authenticated.getProgram(),
                    authenticated.getProgramVersion()));
            if (program == null) {
                authenticated.failProgramUnavailable();
                return;
            }
            dispatch(program, authenticated);
        } catch (IOException | RuntimeException e) {
            logger.warn("{} answering SYSTEM_ERR: RPCSEC_GSS processing of {} failed: {}", ctx.channel(), call,
                    e.toString());
            call.failRpcSystem();
        }
    }

    /** What oncrpc4j's {@code RpcDispatcher} does, except that a program's runtime exception ends only the call. */
    private static void dispatch(RpcDispatchable program, RpcCall call) {
        try {
            program.dispatchOncRpcCall(call);
        } catch (RpcException e) {
            call.reject(e.getStatus(), e.getRpcReply());
            logger.warn("Failed to process RPC request: {}", e.getMessage());
        } catch (IOException e) { // OncRpcException (bad XDR) included
            call.failRpcGarbage();
            logger.warn("Failed to process RPC request {}: {}", call, e.getMessage());
        } catch (RuntimeException e) {
            logger.error("Failed to process RPC request {}: answering SYSTEM_ERR", call, e);
            call.failRpcSystem();
        }
    }

    private void reply(ChannelHandlerContext ctx, int xid, RpcReply reply) {
        CompletionHandler<RpcReply, RpcTransport> callback = replyQueue.get(xid);
        if (callback == null) {
            logger.debug("{} dropped a reply to no call waiting: xid {}", ctx.channel(), Integer.toUnsignedString(xid));
            return;
        }
        if (!reply.isAccepted()) {
            callback.failed(new OncRpcRejectedException(reply.getRejectStatus()), transport);
        } else if (reply.getAcceptStatus() != RpcAccepsStatus.SUCCESS) {
            callback.failed(new OncRpcAcceptedException(reply.getAcceptStatus()), transport);
        } else {
            callback.completed(reply, transport);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        // oncrpc4j registers pending calls under the transport's local address.
        if (transport.getLocalSocketAddress() != null) {
            replyQueue.handleDisconnect(transport.getLocalSocketAddress());
        }
        replyQueue.shutdown();
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        logger.warn("{} closing after an error", ctx.channel(), cause);
        ctx.close();
    }
}
