package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/** A completion queue ({@code ibv_cq}). Polled by one thread at a time. */
public interface CompletionQueue extends AutoCloseable {

    /** A reusable array of {@code capacity} work completions to poll into. */
    CompletionArray newCompletionArray(int capacity);

    /** {@code ibv_poll_cq}: moves up to {@code out.capacity()} completions into {@code out}; returns the count. */
    int poll(CompletionArray out) throws IOException;

    /** {@code ibv_req_notify_cq}: arm; the next completion signals the completion channel once. */
    void requestNotify(boolean solicitedOnly) throws IOException;

    /** {@code ibv_ack_cq_events}: acknowledges events returned by {@link CompletionChannel#getEvent()}. */
    void ackEvents(int count);

    /** {@code ibv_destroy_cq}; all events must have been acknowledged. */
    @Override
    void close() throws IOException;
}
