package dev.rpcrdma.samples.nfs4;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One client as EXCHANGE_ID made it (RFC 5661 §2.4, §18.35): its owner and verifier, the CREATE_SESSION sequence
 * and reply replay (§18.36.4), its sessions, its state and its lease (§8.3: renewed by every SEQUENCE; when it
 * lapses the client loses its state). Guarded by the {@link Nfs4State} lock.
 */
final class ClientRecord {
    final long clientid;
    final byte[] ownerId;
    final byte[] verifier;
    final String principal;
    boolean confirmed;
    /** The csa_sequence the next CREATE_SESSION must carry. */
    int createSessionSeq = 1;
    /** The last CREATE_SESSION result, for a retransmission (csa_sequence one below). */
    Session lastSession;
    int lastSessionFlags;
    final List<Session> sessions = new ArrayList<>(2);
    final Map<Long, StateId> states = new LinkedHashMap<>();
    long lastRenew;
    boolean reclaimComplete;

    ClientRecord(long clientid, byte[] ownerId, byte[] verifier, String principal, long now) {
        this.clientid = clientid;
        this.ownerId = ownerId;
        this.verifier = verifier;
        this.principal = principal;
        this.lastRenew = now;
    }

    boolean hasRevokedState() {
        for (StateId s : states.values()) {
            if (s.revoked) {
                return true;
            }
        }
        return false;
    }

    /** A session callbacks can go through (backchannel up, a usable credential), or null. */
    Session callbackSession() {
        for (Session s : sessions) {
            if (s.canCallBack()) {
                return s;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return "client " + Long.toHexString(clientid);
    }
}
