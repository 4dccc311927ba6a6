package dev.rpcrdma.channel;

import java.util.concurrent.TimeUnit;

/**
 * For tests on any fabric (in the test-jar): how many Sends took a channel's direct send lane
 * ({@link RdmaConnection#sendDirect}), read on its event loop.
 */
public final class DirectSends {

    private DirectSends() {
    }

    /** The Sends that took {@code channel}'s direct lane so far. */
    public static int count(RdmaChannel channel) throws Exception {
        return channel.eventLoop().submit(channel::directSends).get(10, TimeUnit.SECONDS);
    }
}
