package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/**
 * A queue pair's chain of send-queue work requests, written one request at a time and posted with one
 * {@code ibv_post_send} ({@link #post()}); one per queue pair ({@link QueuePair#sendChain()}), reused after each post.
 * A native queue pair writes each request straight into its {@code struct ibv_send_wr} chain, so a request is staged
 * once. The setters apply to the request last {@linkplain #begin begun}. The memory the SGEs point to must stay
 * registered and untouched until the request's completion (the caller's rule, as for
 * {@link QueuePair#postSend(SendWorkRequest[], int)}). Not thread-safe: the queue pair's event loop only.
 */
public interface SendChain {

    /**
     * Begins the next request of the chain with {@code wrId} and {@link SendFlags} {@code sendFlags}, no opcode and
     * no SGE; at most {@link QueuePair#MAX_POST_CHAIN} requests before {@link #post()}.
     */
    void begin(long wrId, int sendFlags);

    /** Starts the request last begun over: {@code wrId}, {@code sendFlags}, no opcode and no SGE. */
    void restart(long wrId, int sendFlags);

    /** A {@link WrOpcode}. */
    void opcode(int opcode);

    /** The {@link SendFlags} of the request last begun. */
    int sendFlags();

    /** Replaces the {@link SendFlags} of the request last begun. */
    void sendFlags(int sendFlags);

    /** Appends a scatter/gather element ({@code lkey} is ignored for {@link SendFlags#INLINE} requests). */
    void addSge(long address, int length, int lkey);

    /** The SGEs of the request last begun. */
    int numSge();

    /** The peer's address and rkey (RDMA Write and Read). */
    void remote(long remoteAddress, int rkey);

    /** The rkey to invalidate (Send With Invalidate, Local Invalidate). */
    void invalidateRkey(int rkey);

    /** Bind Memory Window: {@code window} to {@code [address, address + length)} of {@code region}. */
    void bind(MemoryWindow window, int newRkey, MemoryRegion region, long address, long length, int access);

    /** Requests begun and not posted. */
    int count();

    /**
     * Posts the chain with one {@code ibv_post_send} and empties it. If request {@code k} is rejected, requests
     * {@code 0..k-1} are posted and the rest are not: {@link PostException#posted()} is {@code k}.
     */
    void post() throws IOException;

    /** Forgets the requests begun (they will not be posted). */
    void clear();
}
