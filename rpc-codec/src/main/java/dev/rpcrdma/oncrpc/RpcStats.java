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
                + unexpectedMessages() + ')';
    }
}
