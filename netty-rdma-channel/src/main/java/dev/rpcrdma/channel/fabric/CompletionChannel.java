package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/**
 * A completion channel ({@code ibv_comp_channel}). Its {@link #fd()} is non-blocking and becomes readable when an
 * armed {@link CompletionQueue} receives a completion; {@link #getEvent()} then returns that queue.
 */
public interface CompletionChannel extends AutoCloseable {

    /** The pollable file descriptor. */
    int fd();

    /** {@code ibv_get_cq_event} without blocking: the signalled queue, or {@code null} when none is pending. */
    CompletionQueue getEvent() throws IOException;

    @Override
    void close() throws IOException;
}
