package dev.rpcrdma.handlers.credits;

import static io.netty.util.internal.ObjectUtil.checkPositive;

/**
 * Responder-side credit grants (RFC 8166 §3.3.1): never more than the Receives posted for the requester's calls,
 * adapted within configured bounds to what the requester asks for. A call arriving while more calls are outstanding
 * than the largest grant ever issued is {@link Admission#EXCEEDED_GRANT}: the caller closes the connection, which
 * would otherwise fail on RNR at the next call; a grant lowered after calls were sent admits them. Event-loop only.
 */
public final class ResponderCredits {

    /** What to do with a received call. */
    public enum Admission {
        /** Within the grant: process it. */
        ADMITTED,
        /** The requester has more calls outstanding than was ever granted: close the connection. */
        EXCEEDED_GRANT
    }

    private final int minGrant;
    private final int maxGrant;
    private int maxGranted;
    private int outstanding;
    private long violations;

    /**
     * @param minGrant the smallest grant to issue while receives allow it (at least 1)
     * @param maxGrant the largest grant to issue
     */
    public ResponderCredits(int minGrant, int maxGrant) {
        this.minGrant = checkPositive(minGrant, "minGrant");
        this.maxGrant = checkPositive(maxGrant, "maxGrant");
        if (minGrant > maxGrant) {
            throw new IllegalArgumentException("minGrant " + minGrant + " > maxGrant " + maxGrant);
        }
        // RFC 8166 §3.3.3: before any reply the requester may send one call.
        this.maxGranted = 1;
    }

    /** Calls received and not yet answered. */
    public int outstanding() {
        return outstanding;
    }

    /** How many calls arrived beyond every grant ever issued. */
    public long violations() {
        return violations;
    }

    /** The largest grant issued so far on this connection. */
    public int maxGranted() {
        return maxGranted;
    }

    /** Accounts for one received call and says whether to process it. */
    public Admission onCallReceived() {
        outstanding++;
        if (outstanding > maxGranted) {
            violations++;
            return Admission.EXCEEDED_GRANT;
        }
        return Admission.ADMITTED;
    }

    /**
     * Computes the grant to place in a reply's {@code rdma_credit} field and accounts for the reply.
     *
     * @param requested     the {@code rdma_credit} value of the call being answered (what the requester asked for)
     * @param postedReceives receives currently posted for the requester's calls (after reposting this one's)
     * @return the grant: never more than {@code postedReceives}, never more than {@code maxGrant}, at least
     *         {@code minGrant} when receives allow, and at least 1 (a zero grant could stall the requester)
     */
    public int grantForReply(int requested, int postedReceives) {
        if (outstanding > 0) {
            outstanding--;
        }
        long asked = Integer.toUnsignedLong(requested);
        long grant = Math.max(minGrant, Math.min(asked, maxGrant));
        grant = Math.min(grant, Math.max(1, postedReceives));
        int g = (int) grant;
        if (g > maxGranted) {
            maxGranted = g;
        }
        return g;
    }
}
