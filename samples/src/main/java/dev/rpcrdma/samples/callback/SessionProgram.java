package dev.rpcrdma.samples.callback;

import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

import java.util.concurrent.CompletableFuture;

/**
 * The server's forward program of the demo (0x2004F0C0 version 1): NULL, ECHO (an opaque back) and CREATE_SESSION,
 * which, as NFSv4.1's CREATE_SESSION with CONN_BACK_CHAN does (RFC 5661 §18.36), enables the backchannel of the
 * connection it arrived on and answers the largest backward message it carries. The connection is handed to
 * {@link #sessions()} for the demo's callbacks. Any thread.
 */
final class SessionProgram {
    static final int PROGRAM = 0x2004F0C0;
    static final int VERSION = 1;
    static final int ECHO = 1;
    static final int CREATE_SESSION = 2;
    static final int MAX_ECHO = 64 * 1024;

    private final CompletableFuture<Channel> session = new CompletableFuture<>();

    /** The server side of the first connection that created a session. */
    CompletableFuture<Channel> sessions() {
        return session;
    }

    RpcDispatcher dispatcher(RpcStats stats) {
        return new RpcDispatcher(new RpcProgramRegistry().registerNull(PROGRAM, VERSION)
                .register(PROGRAM, VERSION, ECHO, (call, args) -> {
                    ByteBuf data = args.readDdpOpaque(MAX_ECHO);
                    XdrPayload results;
                    try {
                        results = call.newPayload();
                    } catch (RuntimeException e) {
                        data.release();
                        throw e;
                    }
                    call.replySuccess(results.writeDdpOpaque(data)); // the payload owns data, the reply the payload
                })
                .register(PROGRAM, VERSION, CREATE_SESSION, (call, args) -> {
                    RpcBackchannel backchannel = call.backchannel().enable();
                    XdrPayload results = call.newPayload();
                    results.writer().writeInt(backchannel.maxMessageSize());
                    call.replySuccess(results);
                    session.complete(call.channel());
                }), stats);
    }
}
