package dev.rpcrdma.handlers.credits;

import static io.netty.util.internal.ObjectUtil.checkPositive;

/**
 * Requester-side credit accounting (RFC 8166 §3.3.1): a requester never has more RPC Calls outstanding than the
 * responder's most recent credit grant. Calls beyond the grant wait in the caller's queue until a reply returns a
 * credit.
 *
 * <p>The connection starts with a grant of one (RFC 8166 §3.3.3: the requester may assume one credit until the
 * first reply). A grant of zero is treated as one, as the Linux client does, so the connection can never stall
 * with nothing outstanding and nothing allowed; a grant above {@link #maxRequests()} is clamped to it.
 *
 * <p>Not thread-safe: used from the channel's event loop only.
 */
public final class RequesterCredits {

    private final int maxRequests;
    private int grant = 1;
    private int outstanding;

    /**
     * @param maxRequests the most calls this requester will ever have outstanding (also the value it requests in
     *                    the {@code rdma_credit} field of its calls)
     */
    public RequesterCredits(int maxRequests) {
        this.maxRequests = checkPositive(maxRequests, "maxRequests");
    }

    /** The credit value to request in each call's {@code rdma_credit} field. */
    public int maxRequests() {
        return maxRequests;
    }

    /** The grant currently in force, after the zero and upper-bound adjustments. */
    public int grant() {
        return grant;
    }

    /** Calls sent whose replies have not yet arrived. */
    public int outstanding() {
        return outstanding;
    }

    /** True when one more call may be sent now. */
    public boolean canSend() {
        return outstanding < grant;
    }

    /**
     * Accounts for one call about to be sent.
     *
     * @throws IllegalStateException if {@link #canSend()} is false: sending it would exceed the grant
     */
    public void onCallSent() {
        if (!canSend()) {
            throw new IllegalStateException("credit grant of " + grant + " exhausted (RFC 8166 §3.3.1)");
        }
        outstanding++;
    }

    /**
     * Accounts for a reply (or an RDMA_ERROR) that completed one outstanding call, carrying {@code rdma_credit}.
     *
     * @return true when a call may be sent now but could not before this reply (wake the queue)
     */
    public boolean onReply(int creditValue) {
        boolean couldSend = canSend();
        if (outstanding > 0) {
            outstanding--;
        }
        updateGrant(creditValue);
        return !couldSend && canSend();
    }

    /** Accounts for a call that completed without a reply carrying credits (timed out, cancelled before send). */
    public void onCallAbandoned() {
        if (outstanding > 0) {
            outstanding--;
        }
    }

    private void updateGrant(int creditValue) {
        long value = Integer.toUnsignedLong(creditValue);
        if (value == 0) {
            grant = 1;
        } else {
            grant = (int) Math.min(value, maxRequests);
        }
    }
}
