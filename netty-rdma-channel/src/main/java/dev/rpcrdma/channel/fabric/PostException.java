package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/**
 * A chain of work requests ({@link QueuePair#postSend(SendWorkRequest[], int)},
 * {@link QueuePair#postReceives(long[], long[], int, int, int)}) failed at one request: the requests before it were
 * posted (they are the device's until they complete), that one and the rest were not ({@code bad_wr}).
 */
public final class PostException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int posted;

    public PostException(String verb, int posted, IOException cause) {
        super(verb + ": request " + posted + " of the chain rejected: " + cause.getMessage(), cause);
        this.posted = posted;
    }

    /** How many requests of the chain were posted (the index of the rejected one). */
    public int posted() {
        return posted;
    }
}
