package dev.rpcrdma.oncrpc.program;

import dev.rpcrdma.oncrpc.server.RpcCallContext;

/**
 * The implementation of one typed procedure ({@link RpcProcedureSpec}): decoded arguments in, results out. Runs on
 * the connection's event loop, or on the service's executor for a procedure declared
 * {@link RpcProcedureSpec#blocking()}. A thrown exception answers SYSTEM_ERR (RFC 5531 §9) and is logged.
 *
 * @param <A> argument type
 * @param <R> result type
 */
@FunctionalInterface
public interface RpcHandler<A, R> {

    /**
     * Computes the results of one call ({@code call}: the caller's credential, channel, backchannel). {@code call}
     * is valid until this method returns (on the loop it is reused afterwards): keep what you need of it, such as
     * its channel or {@link RpcCallContext#callback()}, not the context itself.
     */
    R handle(RpcCallContext call, A args) throws Exception;
}
