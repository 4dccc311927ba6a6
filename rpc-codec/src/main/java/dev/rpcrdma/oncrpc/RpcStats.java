package dev.rpcrdma.oncrpc;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of peer misbehaviour that the RPC stack handled by dropping something or closing a connection. One
 * instance may be shared by many channels (thread-safe). Transports (TCP here, RPC-over-RDMA elsewhere)
 * increment them through the {@code record...} methods; tests and monitoring read them.
 */
public final class RpcStats {

    private final LongAdder oversizedRecords = new LongAdder();
    private final LongAdder truncatedRecords = new LongAdder();
    private final LongAdder malformedMessages = new LongAdder();
    private final LongAdder unknownXidReplies = new LongAdder();
    private final LongAdder unexpectedMessages = new LongAdder();
    private final LongAdder backwardCallsSent = new LongAdder();
    private final LongAdder backwardCallsReceived = new LongAdder();
    private final LongAdder backwardRepliesReceived = new LongAdder();
    private final LongAdder backwardDrops = new LongAdder();

    /** Records (or fragments) that declared more than the configured maximum; the connection was closed. */
    public long oversizedRecords() {
        return oversizedRecords.sum();
    }

    /** Connections that ended in the middle of a record; the partial record was discarded. */
    public long truncatedRecords() {
        return truncatedRecords.sum();
    }

    /** Messages whose rpc_msg header could not be decoded (truncated, msg_type not CALL/REPLY...); dropped. */
    public long malformedMessages() {
        return malformedMessages.sum();
    }

    /** Replies whose xid matches no pending call (never sent, timed out or already answered); dropped. */
    public long unknownXidReplies() {
        return unknownXidReplies.sum();
    }

    /** Calls received by a client or replies received by a server; dropped. */
    public long unexpectedMessages() {
        return unexpectedMessages.sum();
    }

    /** Backward calls (server to client, {@link RpcBackchannel}) this side sent. */
    public long backwardCallsSent() {
        return backwardCallsSent.sum();
    }

    /** Backward calls this side received and dispatched to its callback programs. */
    public long backwardCallsReceived() {
        return backwardCallsReceived.sum();
    }

    /** Replies to this side's backward calls that arrived. */
    public long backwardRepliesReceived() {
        return backwardRepliesReceived.sum();
    }

    /**
     * Backward-direction messages dropped: a backward call on a connection whose backchannel is not enabled, or
     * one the transport refused (RPC-over-RDMA: chunks, over size, beyond the backward credits; the connection
     * was then closed).
     */
    public long backwardDrops() {
        return backwardDrops.sum();
    }

    /** Counts a backward call sent. */
    public void recordBackwardCallSent() {
        backwardCallsSent.increment();
    }

    /** Counts a backward call received. */
    public void recordBackwardCallReceived() {
        backwardCallsReceived.increment();
    }

    /** Counts a reply to a backward call. */
    public void recordBackwardReplyReceived() {
        backwardRepliesReceived.increment();
    }

    /** Counts a dropped backward-direction message. */
    public void recordBackwardDrop() {
        backwardDrops.increment();
    }

    /** Counts an oversized record. */
    public void recordOversizedRecord() {
        oversizedRecords.increment();
    }

    /** Counts a truncated record. */
    public void recordTruncatedRecord() {
        truncatedRecords.increment();
    }

    /** Counts a malformed message. */
    public void recordMalformedMessage() {
        malformedMessages.increment();
    }

    /** Counts a reply with an unknown xid. */
    public void recordUnknownXidReply() {
        unknownXidReplies.increment();
    }

    /** Counts a message of the wrong direction. */
    public void recordUnexpectedMessage() {
        unexpectedMessages.increment();
    }

    @Override
    public String toString() {
        return "RpcStats(oversized=" + oversizedRecords() + ", truncated=" + truncatedRecords() + ", malformed="
                + malformedMessages() + ", unknownXid=" + unknownXidReplies() + ", unexpected="
                + unexpectedMessages() + ", backward sent/received/replies/drops=" + backwardCallsSent() + '/'
                + backwardCallsReceived() + '/' + backwardRepliesReceived() + '/' + backwardDrops() + ')';
    }
}
