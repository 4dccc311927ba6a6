package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.WcStatus;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * An {@link RdmaChannel}'s first failure (the channel closes after the completion batch that found it), and which
 * failed work requests its pipeline hears of. Loop thread.
 */
final class ChannelFailures {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaChannel.class);

    private final RdmaChannel ch;
    private Throwable first;

    ChannelFailures(RdmaChannel ch) {
        this.ch = ch;
    }

    /** The first failure recorded (closing follows), or null. */
    Throwable first() {
        return first;
    }

    /** Records the first failure without telling the pipeline; the channel closes after the current batch. */
    void record(Throwable cause) {
        if (first == null) {
            first = cause;
        }
    }

    /** A failure the pipeline hears of (once), then the channel closes. */
    void fail(Throwable cause) {
        record(cause);
        if (!ch.state.closing()) {
            logger.debug("{} failed", ch, cause);
            ch.pipeline().fireExceptionCaught(cause);
            ch.close();
        }
    }

    /** A receive completed in error. */
    void receiveFailed(int status) {
        if (status != WcStatus.WR_FLUSH_ERR && first == null) {
            first = new RdmaWorkRequestException("receive", status, null);
            ch.pipeline().fireExceptionCaught(first);
        } else if (!ch.state.closing() && first == null) {
            // The queue pair went to error (e.g. the peer broke an access rule): the connection is dead.
            first = new RdmaWorkRequestException("receive", status, "queue pair in error");
        }
    }

    /**
     * A send-queue work request ({@code what}) completed with {@code status}: returns the cause its promise fails
     * with. The first failure of an open channel breaks the connection; a Send whose promise completed when it was
     * posted ({@code held} false) has no promise to fail, so the pipeline hears of it, unless the peer merely stopped
     * answering or the connection ended under it (the connection is lost, which the close reports, as a TCP peer going
     * away is not an exception): a flush on an open channel whose own requests had not failed means the queue pair went
     * to error from outside, the peer's disconnect or (iWARP) its TERMINATE or abort, whose CM event may come after the
     * flushes.
     */
    RdmaWorkRequestException workRequestFailed(String what, int status, boolean held) {
        boolean closing = ch.state.closing();
        RdmaWorkRequestException cause = new RdmaWorkRequestException(what, status,
                status == WcStatus.WR_FLUSH_ERR ? (closing ? "channel closed" : "queue pair in error") : null);
        if (first == null && (status != WcStatus.WR_FLUSH_ERR || !closing)) {
            first = cause;
            // The responder's verdict on this very request (its NAK on IB and RoCE: remote access, invalid
            // request/operational error) is reported even when the close already began: the peer, having failed the
            // request (e.g. a receive too short), may disconnect before this completion is polled. Local errors
            // while closing are the close's doing (an iWARP device may complete a Send it was transmitting with
            // LOC_QP_OP_ERR when the connection drops) and are not reported.
            boolean peersVerdict = status == WcStatus.REM_INV_REQ_ERR || status == WcStatus.REM_ACCESS_ERR
                    || status == WcStatus.REM_OP_ERR;
            if (!held && (!closing || peersVerdict)) {
                // iWARP: the Send being transmitted completes with LOC_QP_OP_ERR when the peer's abort closes the
                // stream under it (Linux siw_qp_tx.c), as it does when our own close does.
                if (status == WcStatus.RETRY_EXC_ERR || status == WcStatus.RNR_RETRY_EXC_ERR
                        || status == WcStatus.WR_FLUSH_ERR || status == WcStatus.LOC_QP_OP_ERR && ch.iwarp()) {
                    logger.info("{}: connection lost: {}", ch, cause.getMessage());
                } else {
                    ch.pipeline().fireExceptionCaught(cause);
                }
            }
        }
        return cause;
    }
}
