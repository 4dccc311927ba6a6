package dev.rpcrdma.oncrpc.server;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;

/**
 * A server procedure. Called on the channel's event loop with the call's context and its arguments; answers
 * through {@link RpcCallContext} now or later (from any thread).
 *
 * <p>The {@code args} reader is valid only during this call: decode the arguments before returning, then
 * compute and reply asynchronously if needed. A {@code call} answered before this method returns (on the loop) is
 * reused for a later call once it has returned: keep it only when answering later (see {@link RpcCallContext}).
 * If this method throws an {@link XdrException} (the arguments
 * could not be decoded) and no reply was sent yet, the dispatcher answers GARBAGE_ARGS; if it throws anything
 * else, SYSTEM_ERR (RFC 5531 §9).
 */
@FunctionalInterface
public interface RpcProcedure {

    /** Handles one call. */
    void call(RpcCallContext call, XdrReader args) throws XdrException;

    /** Procedure 0, NULL by RFC 5531 convention: no arguments, empty SUCCESS reply (pings, rpcinfo). */
    RpcProcedure NULL = (call, args) -> call.replySuccess(XdrPayload.empty(), call.voidPromise());
}
