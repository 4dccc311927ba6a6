package dev.rpcrdma.channel.fabric;

/**
 * A flyweight over an array of work completions ({@code struct ibv_wc[]}), filled by
 * {@link CompletionQueue#poll(CompletionArray)}. Indexes are {@code 0 .. count-1} of the last poll.
 */
public interface CompletionArray {

    int capacity();

    /** {@code wc.wr_id}. */
    long wrId(int i);

    /** {@code wc.status}, a {@link WcStatus} value. */
    int status(int i);

    /** {@code wc.opcode}, a {@link WcOpcode} value (only valid for successful completions). */
    int opcode(int i);

    /** {@code wc.byte_len}: bytes received (receive completions) or read. */
    int byteLength(int i);

    /** {@code wc.wc_flags}, {@link WcFlags}. */
    int flags(int i);

    /** {@code wc.invalidated_rkey} when {@link WcFlags#WITH_INV} is set. */
    int invalidatedRkey(int i);

    /** {@code wc.qp_num}: the queue pair the work request was posted to (the receiving one, for a shared receive queue). */
    int qpNum(int i);

    /** {@code wc.vendor_err}. */
    int vendorError(int i);
}
