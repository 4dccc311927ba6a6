package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.server.RpcCallContext;
import dev.rpcrdma.oncrpc.server.RpcProcedure;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.buffer.ByteBuf;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs a procedure on an executor instead of the event loop: COMPOUND takes the server's one state lock and, with
 * a host-directory export, does file I/O, neither of which may hold up an event loop. The call's arguments (the
 * reassembled inline stream; at a responder nothing is placed out of band) are kept by a retained slice until the
 * procedure ran; the reply is written from the executor (RpcCallContext answers from any thread, on the
 * connection's loop). As RpcDispatcher does on the loop: arguments that do not decode answer GARBAGE_ARGS, any other
 * failure SYSTEM_ERR. Stateless; any thread.
 */
final class OffLoopProcedure implements RpcProcedure {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(OffLoopProcedure.class);

    private final Executor executor;
    private final RpcProcedure delegate;

    OffLoopProcedure(Executor executor, RpcProcedure delegate) {
        this.executor = executor;
        this.delegate = delegate;
    }

    @Override
    public void call(RpcCallContext call, XdrReader args) {
        ByteBuf in = args.buffer().retainedSlice();
        try {
            executor.execute(() -> {
                try {
                    delegate.call(call, new XdrReader(in));
                } catch (XdrException e) {
                    logger.debug("{} garbage arguments for {}: {}", call.channel(), call.call(), e.getMessage());
                    if (!call.isReplied()) {
                        call.replyError(AcceptStat.GARBAGE_ARGS);
                    }
                } catch (RuntimeException e) {
                    logger.warn("{} procedure failed for {}", call.channel(), call.call(), e);
                    if (!call.isReplied()) {
                        call.replyError(AcceptStat.SYSTEM_ERR);
                    }
                } finally {
                    in.release();
                }
            });
        } catch (RejectedExecutionException e) {
            in.release();
            call.replyError(AcceptStat.SYSTEM_ERR); // the server is shutting down
        }
    }
}
