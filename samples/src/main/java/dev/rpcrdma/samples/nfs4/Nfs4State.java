package dev.rpcrdma.samples.nfs4;

import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.collection.LongObjectMap;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * All of the server's protocol state: clients by id and by owner (RFC 5661 §2.4), sessions (§2.10), stateids of
 * opens and delegations by id and by file (§8.2, §10.2), leases and their expiry (§8.3), the delegation rules
 * (grant on a conflict-free read open, recall on a conflicting write open, revoke after a lease without return,
 * §10.2, §10.4.1). It is also the one lock of the server: every compound runs with its monitor held (compounds are
 * short and the in-memory file system is fast), so nothing here needs finer locking. Callbacks are sent without
 * waiting; their completions take the lock again.
 */
final class Nfs4State {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(Nfs4State.class);

    final int leaseSeconds;
    final LongSupplier clock;
    /** The boot marker in every stateid and client id: state from an earlier run is recognised as stale. */
    final int boot;
    final byte[] writeVerifier = new byte[Nfs4.VERIFIER_SIZE];
    /**
     * Client records by owner (RFC 5661 §18.35.4): at most one confirmed and one unconfirmed record per owner
     * (a restarted client's new record is unconfirmed next to its old confirmed one until CREATE_SESSION).
     */
    private final Map<ByteBuffer, ClientRecord> confirmedByOwner = new HashMap<>();
    private final Map<ByteBuffer, ClientRecord> unconfirmedByOwner = new HashMap<>();
    private final LongObjectMap<ClientRecord> clients = new LongObjectHashMap<>();
    private final Map<ByteBuffer, Session> sessions = new HashMap<>();
    private final LongObjectMap<StateId> stateids = new LongObjectHashMap<>();
    private final LongObjectMap<List<StateId>> byFile = new LongObjectHashMap<>();
    /** EXCLUSIVE4/EXCLUSIVE4_1 create verifiers by file id (RFC 5661 §18.16.3). */
    final LongObjectMap<byte[]> createVerifiers = new LongObjectHashMap<>();
    private int nextClient;
    private long nextState = 1;
    private int nextSession;
    /** Counters: delegations granted, recalls sent, delegations returned, delegations revoked. */
    long granted;
    long recalls;
    long returned;
    long revoked;
    /** Sends callbacks; set once by the server. */
    Callbacks callbacks;
    /** The exported tree, told which files are open ({@link Nfs4FileSystem#keepWhileOpen}); set once by the server. */
    Nfs4FileSystem fs;

    Nfs4State(int leaseSeconds, LongSupplier clock) {
        this.leaseSeconds = leaseSeconds;
        this.clock = clock;
        SecureRandom r = new SecureRandom();
        boot = r.nextInt() | 1;
        r.nextBytes(writeVerifier);
    }

    long now() {
        return clock.getAsLong();
    }

    long leaseNanos() {
        return TimeUnit.SECONDS.toNanos(leaseSeconds);
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder(b.length * 2);
        for (byte x : b) {
            s.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
        }
        return s.toString();
    }

    // ------------------------------------------------------------------ clients

    /** The confirmed record of {@code owner}, or null. */
    ClientRecord confirmed(byte[] owner) {
        return confirmedByOwner.get(ByteBuffer.wrap(owner));
    }

    /** The unconfirmed record of {@code owner}, or null. */
    ClientRecord unconfirmed(byte[] owner) {
        return unconfirmedByOwner.get(ByteBuffer.wrap(owner));
    }

    /**
     * A new unconfirmed record with a new client id (RFC 5661 §18.35.4 cases 1, 3, 4, 5): it replaces the owner's
     * unconfirmed record, if any; a confirmed one stays until CREATE_SESSION {@link #confirm confirms} this one.
     */
    ClientRecord newClient(byte[] owner, byte[] verifier, String principal) {
        ClientRecord old = unconfirmed(owner);
        if (old != null) {
            destroyClient(old);
        }
        long id = ((long) boot << 32) | (++nextClient & 0xFFFFFFFFL);
        ClientRecord c = new ClientRecord(id, owner, verifier, principal, now());
        unconfirmedByOwner.put(ByteBuffer.wrap(owner), c);
        clients.put(id, c);
        return c;
    }

    /**
     * Confirms {@code c} (its first CREATE_SESSION, RFC 5661 §18.36.4 phase 3): the owner's previously confirmed
     * record, a restarted client's old incarnation, goes with all its sessions and state (§18.35.4 case 5).
     */
    void confirm(ClientRecord c) {
        if (c.confirmed) {
            return;
        }
        ByteBuffer key = ByteBuffer.wrap(c.ownerId);
        ClientRecord old = confirmedByOwner.get(key);
        if (old != null) {
            logger.info("{} replaces {} (a client restart)", c, old);
            destroyClient(old);
        }
        unconfirmedByOwner.remove(key, c);
        confirmedByOwner.put(key, c);
        c.confirmed = true;
    }

    ClientRecord client(long clientid) throws Nfs4Exception {
        ClientRecord c = clients.get(clientid);
        if (c == null) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_STALE_CLIENTID);
        }
        return c;
    }

    void destroyClient(ClientRecord c) {
        for (Session s : new ArrayList<>(c.sessions)) {
            destroySession(s);
        }
        for (StateId s : new ArrayList<>(c.states.values())) {
            removeState(s);
        }
        clients.remove(c.clientid);
        confirmedByOwner.remove(ByteBuffer.wrap(c.ownerId), c);
        unconfirmedByOwner.remove(ByteBuffer.wrap(c.ownerId), c);
        if (c.lastSession != null && !c.sessions.contains(c.lastSession)) {
            c.lastSession.destroy();
        }
    }

    // ------------------------------------------------------------------ sessions

    Session newSession(ClientRecord c, ChannelAttrs fore, ChannelAttrs back, int cbProgram,
                       CallbackSecurity cbSecurity) {
        byte[] id = ByteBuffer.allocate(Nfs4.SESSIONID_SIZE).putLong(c.clientid).putInt(++nextSession)
                .putInt(boot).array();
        Session s = new Session(id, c, fore, back, cbProgram, cbSecurity);
        sessions.put(ByteBuffer.wrap(id), s);
        c.sessions.add(s);
        return s;
    }

    Session session(byte[] id) throws Nfs4Exception {
        Session s = sessions.get(ByteBuffer.wrap(id));
        if (s == null) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_BADSESSION);
        }
        return s;
    }

    void destroySession(Session s) {
        sessions.remove(ByteBuffer.wrap(s.id));
        s.client.sessions.remove(s);
        s.destroy();
    }

    /** Releases everything that holds buffers (server shutdown). */
    void shutdown() {
        for (ClientRecord c : new ArrayList<>(clients.values())) {
            destroyClient(c);
        }
    }

    // ------------------------------------------------------------------ stateids

    StateId newState(int kind, ClientRecord c, long fileid, byte[] owner) {
        StateId s = new StateId(nextState++, kind, c, fileid, owner);
        stateids.put(s.id, s);
        c.states.put(s.id, s);
        if (kind == StateId.OPEN && fs != null && !isOpen(fileid)) {
            fs.keepWhileOpen(fileid, true);
        }
        byFile.computeIfAbsent(fileid, k -> new ArrayList<>(2)).add(s);
        return s;
    }

    void removeState(StateId s) {
        stateids.remove(s.id);
        s.client.states.remove(s.id);
        unindex(s);
        if (s.kind == StateId.OPEN && fs != null && !isOpen(s.fileid)) {
            fs.keepWhileOpen(s.fileid, false);
        }
    }

    /** Whether some client has {@code fileid} open. */
    boolean isOpen(long fileid) {
        for (StateId s : statesOf(fileid)) {
            if (s.kind == StateId.OPEN) {
                return true;
            }
        }
        return false;
    }

    private void unindex(StateId s) {
        List<StateId> l = byFile.get(s.fileid);
        if (l != null) {
            l.remove(s);
            if (l.isEmpty()) {
                byFile.remove(s.fileid);
            }
        }
    }

    List<StateId> statesOf(long fileid) {
        List<StateId> l = byFile.get(fileid);
        return l == null ? List.of() : l;
    }

    StateId openOf(ClientRecord c, byte[] owner, long fileid) {
        for (StateId s : statesOf(fileid)) {
            if (s.kind == StateId.OPEN && s.client == c && Arrays.equals(s.owner, owner)) {
                return s;
            }
        }
        return null;
    }

    /**
     * The state a stateid names for client {@code c} (RFC 5661 §8.2.4 checks): BAD_STATEID for an unknown or
     * foreign one, OLD_STATEID for an outdated seqid (seqid 0 means "the current one", §8.2.2), DELEG_REVOKED for
     * a revoked delegation.
     */
    StateId find(StateId.Wire w, ClientRecord c) throws Nfs4Exception {
        StateId s = w.boot() == boot ? stateids.get(w.id()) : null;
        if (s == null || s.client != c) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_BAD_STATEID);
        }
        if (s.revoked) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_DELEG_REVOKED);
        }
        if (w.seqid() != 0 && w.seqid() != s.seqid) {
            throw new Nfs4Exception(Integer.compareUnsigned(w.seqid(), s.seqid) < 0 ? Nfs4.NFS4ERR_OLD_STATEID
                    : Nfs4.NFS4ERR_BAD_STATEID);
        }
        return s;
    }

    /** TEST_STATEID's answer for one stateid (RFC 5661 §18.48.3). */
    int test(StateId.Wire w, ClientRecord c) {
        try {
            find(w, c);
            return Nfs4.NFS4_OK;
        } catch (Nfs4Exception e) {
            return e.status();
        }
    }

    /** FREE_STATEID (RFC 5661 §18.38): frees a revoked delegation; a live open is LOCKS_HELD. */
    void free(StateId.Wire w, ClientRecord c) throws Nfs4Exception {
        StateId s = w.boot() == boot ? stateids.get(w.id()) : null;
        if (s == null || s.client != c) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_BAD_STATEID);
        }
        if (!s.revoked && s.kind == StateId.OPEN) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_LOCKS_HELD);
        }
        removeState(s);
    }

    // ------------------------------------------------------------------ delegations

    /**
     * Whether {@code c} may get a read delegation on {@code fileid} (RFC 5661 §10.4): its session has a working
     * backchannel and nobody has the file open for write or has a recall in progress on it.
     */
    boolean mayDelegate(ClientRecord c, Session session, long fileid) {
        if (session == null || !session.canCallBack()) {
            return false;
        }
        for (StateId s : statesOf(fileid)) {
            if (s.kind == StateId.OPEN && (s.access & Nfs4.OPEN4_SHARE_ACCESS_WRITE) != 0) {
                return false;
            }
            if (s.isDelegation() && (s.recalledAt != 0 || s.client == c)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Checks {@code fileid} for delegations of clients other than {@code c} that a write, truncation, removal or
     * rename conflicts with (RFC 5661 §10.4.1): recalls each one not recalled yet and throws DELAY while any is
     * outstanding; the client retries until DELEGRETURN or revocation clears the way.
     */
    void breakDelegations(long fileid, ClientRecord c, byte[] fileHandle) throws Nfs4Exception {
        boolean outstanding = false;
        for (StateId s : new ArrayList<>(statesOf(fileid))) {
            if (!s.isDelegation() || s.client == c || s.revoked) {
                continue;
            }
            outstanding = true;
            if (s.recalledAt == 0) {
                s.recalledAt = now();
                Session cb = s.client.callbackSession();
                if (cb != null && callbacks != null) {
                    recalls++;
                    callbacks.recall(cb, s, fileHandle);
                } else {
                    logger.info("{}: no backchannel to recall {}; revoking it at lease end", s.client, s);
                }
            }
        }
        if (outstanding) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_DELAY, "delegation recall in progress on file " + fileid);
        }
    }

    // ------------------------------------------------------------------ leases

    /**
     * Expires clients whose lease lapsed (they lose all state, RFC 5661 §8.3) and revokes delegations recalled a
     * lease ago and not returned (§10.2, §8.3.3: the holder later sees SEQ4_STATUS_RECALLABLE_STATE_REVOKED and
     * frees them with FREE_STATEID). Runs periodically.
     */
    void expire() {
        long now = now();
        long lease = leaseNanos();
        for (Iterator<ClientRecord> it = new ArrayList<>(clients.values()).iterator(); it.hasNext(); ) {
            ClientRecord c = it.next();
            if (now - c.lastRenew > lease) {
                logger.info("{}: lease expired, dropping its state", c);
                destroyClient(c);
            }
        }
        for (StateId s : new ArrayList<>(stateids.values())) {
            if (s.isDelegation() && !s.revoked && s.recalledAt != 0 && now - s.recalledAt > lease) {
                logger.info("{} not returned within the lease: revoked", s);
                s.revoked = true;
                revoked++;
                unindex(s);
            }
        }
    }
}
