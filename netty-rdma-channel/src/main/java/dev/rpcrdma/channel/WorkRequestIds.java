package dev.rpcrdma.channel;

/**
 * {@code wr_id} encoding, like io_uring's {@code UserData}: channel id (24 bits) | kind (8 bits) | slot (32 bits).
 */
final class WorkRequestIds {
    static final int RECEIVE = 1;
    static final int SEND_QUEUE = 2;
    /** A receive of a loop's shared receive queue: the channel-id field holds the queue's index in its loop device. */
    static final int SHARED_RECEIVE = 3;

    private WorkRequestIds() {
    }

    static long encode(int channelId, int kind, int slot) {
        return ((long) (channelId & 0xffffff) << 40) | ((long) (kind & 0xff) << 32) | (slot & 0xffffffffL);
    }

    static int channelId(long wrId) {
        return (int) (wrId >>> 40) & 0xffffff;
    }

    static int kind(long wrId) {
        return (int) (wrId >>> 32) & 0xff;
    }

    static int slot(long wrId) {
        return (int) wrId;
    }
}
