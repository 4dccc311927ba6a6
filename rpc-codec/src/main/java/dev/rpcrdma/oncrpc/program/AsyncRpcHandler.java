package dev.rpcrdma.oncrpc.program;

import dev.rpcrdma.oncrpc.server.RpcCallContext;

import java.util.concurrent.CompletionStage;

/**
 * The implementation of one typed procedure that answers later: it starts the work and returns a stage completed
 * with the results from any thread; the reply is written on the connection's loop then. Called on the event loop
 * (never block in it). A stage completed exceptionally, or an exception thrown here, answers SYSTEM_ERR.
 *
 * @param <A> argument type
 * @param <R> result type
 */
@FunctionalInterface
public interface AsyncRpcHandler<A, R> {

    /** Starts one call ({@code call}: the caller's credential, channel, backchannel). */
    CompletionStage<R> handle(RpcCallContext call, A args) throws Exception;
}
