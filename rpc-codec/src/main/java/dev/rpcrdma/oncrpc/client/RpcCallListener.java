package dev.rpcrdma.oncrpc.client;

/**
 * Receives the outcome of a call made with
 * {@link RpcClient#call(int, int, int, dev.rpcrdma.oncrpc.xdr.XdrPayload, RpcReplyDecoder, CallOptions,
 * RpcCallListener)}: exactly one of its methods runs once per call, on the channel's event loop (do not block
 * there). One listener may serve any number of calls, in flight together or one after another: with a listener
 * (and a decoder) kept by the caller, a call allocates nothing in steady state, where the
 * {@link java.util.concurrent.CompletableFuture} form allocates its future and its callbacks.
 *
 * @param <T> the decoded result type
 */
public interface RpcCallListener<T> {

    /** The call succeeded; {@code result} is what the decoder returned. */
    void onResult(T result);

    /**
     * The call failed, with the same typed causes as the future form: {@link RpcReplyException},
     * {@link RpcTimeoutException}, {@link RpcConnectionClosedException}, the decoder's exception, or the
     * transport's own.
     */
    void onFailure(Throwable cause);
}
