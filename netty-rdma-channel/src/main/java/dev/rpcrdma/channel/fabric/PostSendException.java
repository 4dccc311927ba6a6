package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/**
 * {@link QueuePair#postSend(SendWorkRequest[], int)} failed at one request of the chain: the requests before it
 * were posted (they are the device's until they complete), that one and the rest were not ({@code bad_wr}).
 */
public final class PostSendException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int posted;

    public PostSendException(int posted, IOException cause) {
        super("ibv_post_send: request " + posted + " of the chain rejected: " + cause.getMessage(), cause);
        this.posted = posted;
    }

    /** How many requests of the chain were posted (the index of the rejected one). */
    public int posted() {
        return posted;
    }
}
