package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.oncrpc.program.RpcProcedureSpec;
import dev.rpcrdma.oncrpc.program.RpcProgram;
import dev.rpcrdma.oncrpc.program.RpcProgramService;
import dev.rpcrdma.oncrpc.program.XdrCodec;

import java.util.concurrent.Executor;

/** A typed program (issue 15) served next to {@link EchoService} by the end-to-end suite. */
final class TypedEcho {
    static final String BLOCKING_THREAD = "typed-blocking";
    /** A DDP-eligible result up to 1 MiB, declared so its calls provision a Reply chunk for it. */
    static final RpcProcedureSpec<byte[], byte[]> ECHO = RpcProcedureSpec.of(1, "ECHO", XdrCodec.opaque(1 << 20),
            XdrCodec.ddpOpaque(1 << 20)).withMaxReplySize((1 << 20) + 1024);
    /** A small result: declared small, its calls offer no Reply chunk. */
    static final RpcProcedureSpec<byte[], Integer> LENGTH = RpcProcedureSpec.of(2, "LENGTH",
            XdrCodec.opaque(1 << 20), XdrCodec.INT).withMaxReplySize(512);
    /** Blocking: sleeps the given milliseconds and answers the name of the thread it ran on. */
    static final RpcProcedureSpec<Integer, String> WHERE = RpcProcedureSpec.of(3, "WHERE", XdrCodec.INT,
            XdrCodec.string(256)).blocking().withMaxReplySize(512);
    static final RpcProgram PROGRAM = RpcProgram.of(0x2004F0C1, 1, "typed-echo", ECHO, LENGTH, WHERE);

    private TypedEcho() {
    }

    static RpcProgramService service(Executor executor) {
        return PROGRAM.service()
                .implement(ECHO, (call, data) -> data)
                .implement(LENGTH, (call, data) -> data.length)
                .implement(WHERE, (call, millis) -> {
                    if (call.channel().eventLoop().inEventLoop()) {
                        throw new IllegalStateException("a blocking procedure ran on the event loop");
                    }
                    Thread.sleep(millis);
                    return Thread.currentThread().getName();
                })
                .executor(executor)
                .build();
    }
}
