package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.message.AuthSysCredential;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules of issue 27, each driven through the wire with raw COMPOUNDs of {@link Nfs4TestClient}: client
 * records (RFC 5661 §18.35.4), sessions (§18.36, §2.10.6), callback security (§18.36.3, §18.33), delegation
 * answers (§18.16.3), the current stateid (§16.2.3.1.2), open files that lose their name (§18.25.4, §18.26.4) and
 * the grace period this server does not have (§8.4.2). Run on TCP ({@link Nfs4ConformanceTcpTest}) and over
 * RPC-over-RDMA on the software fabric ({@link Nfs4ConformanceSoftwareFabricTest}).
 */
abstract class Nfs4Conformance {
    /** The "current stateid" special value (seqid 1, other all zeros, RFC 5661 §16.2.3.1.2). */
    static final byte[] CURRENT_STATEID = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    static final ChannelAttrs FORE = new ChannelAttrs(0, (1 << 20) + 8192, (1 << 20) + 8192, 8192, 8, 16);
    static final ChannelAttrs BACK = new ChannelAttrs(0, 4068, 4068, 0, 2, 16);
    static final int BACK_CHAN = Nfs4.CREATE_SESSION4_FLAG_CONN_BACK_CHAN;

    Nfs4Server server;
    final List<Nfs4TestClient> clients = new ArrayList<>();

    /** Starts the server and whatever the transport's clients need. */
    abstract Nfs4Server startServer() throws Exception;

    /** A new connection to the server, for a client with this owner. */
    abstract Nfs4TestClient connect(String owner) throws Exception;

    /** Stops what {@link #startServer()} started besides the server. */
    abstract void stopTransport() throws Exception;

    @BeforeEach
    void start() throws Exception {
        server = startServer();
    }

    @AfterEach
    void stop() throws Exception {
        for (Nfs4TestClient c : clients) {
            c.close();
        }
        stopTransport();
        server.close();
    }

    Nfs4TestClient client(String owner) throws Exception {
        Nfs4TestClient c = connect(owner);
        clients.add(c);
        return c;
    }

    /** Calls with AUTH_SYS as {@code uid}@{@code machine}: another principal than the test client's default. */
    static CallOptions as(int uid, String machine) {
        return Nfs4TestClient.OPTIONS.withCredential(new AuthSysCredential(0, machine, uid, uid).toOpaqueAuth());
    }

    /** Creates {@code name} in the root with {@code data}, closed again; returns its file handle. */
    static byte[] createFile(Nfs4TestClient c, String name, byte[] data) throws Exception {
        Nfs4TestClient.Reply r = c.call(c.sequenced().putrootfh().open("w", Nfs4.OPEN4_SHARE_ACCESS_BOTH, true, name)
                .getfh());
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        byte[] st = r.open()[0];
        byte[] fh = r.fh();
        if (data.length > 0) {
            assertEquals(0, c.call(c.sequenced().putfh(fh).write(st, 0, data, Nfs4.FILE_SYNC4)).status);
        }
        assertEquals(0, c.call(c.sequenced().putfh(fh).close(st)).status);
        return fh;
    }

    static void reclaimComplete(Nfs4TestClient c) throws Exception {
        assertEquals(0, c.call(c.sequenced().op(Nfs4.OP_RECLAIM_COMPLETE).bool(false)).status);
    }

    /** TEST_STATEID of one stateid: its status. */
    static int testStateid(Nfs4TestClient c, byte[] stateid) throws Exception {
        Nfs4TestClient.Compound t = c.sequenced().op(Nfs4.OP_TEST_STATEID);
        t.w.writeInt(1).writeFixedOpaque(stateid);
        Nfs4TestClient.Reply r = c.call(t);
        r.sequenceFlags();
        r.ok(Nfs4.OP_TEST_STATEID);
        assertEquals(1, r.in.readInt());
        return r.in.readInt();
    }

    // ------------------------------------------------------------------ client records (§18.35)

    /** §18.35.4 case 5 and §18.36.4: a restarted client gets a new client id; its old state goes on confirmation. */
    @Test
    void rebootedClientGetsANewClientidAndItsOldRecordGoesWhenTheNewIsConfirmed() throws Exception {
        Nfs4TestClient a = client("reboot");
        a.mount();
        long oldId = a.clientid;
        byte[] oldSession = a.sessionId;
        Nfs4TestClient.Reply r = a.call(a.sequenced().putrootfh().open("o", Nfs4.OPEN4_SHARE_ACCESS_BOTH, true, "f"));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        byte[] open = r.open()[0];
        int oldSlot = a.slotSeq;

        a.verifier = new byte[] {1, 2, 3, 4, 5, 6, 7, 8};
        assertEquals(0, a.exchangeId(0));
        assertNotEquals(oldId, a.clientid, "a new incarnation must not get the old client id");
        assertEquals(0, a.exchangeFlags & Nfs4.EXCHGID4_FLAG_CONFIRMED_R, "the new record is unconfirmed");
        // Until CREATE_SESSION confirms the new record, the old one and its session live on.
        assertEquals(0, a.call(a.sequence(oldSession, ++oldSlot, 0, false)).status);

        a.createSession(true, 8, (1 << 20) + 8192);
        assertEquals(0, a.call(a.sequenced().putrootfh()).status, "the new record's session works");
        r = a.call(a.sequence(oldSession, ++oldSlot, 0, false));
        assertEquals(Nfs4.NFS4ERR_BADSESSION, r.next(Nfs4.OP_SEQUENCE), "the old incarnation's session is gone");
        assertEquals(Nfs4.NFS4ERR_BAD_STATEID, testStateid(a, open), "and so is its open state");

        // The same incarnation again (a retry, or trunking): the same, confirmed client id (case 2).
        long newId = a.clientid;
        assertEquals(0, a.exchangeId(0));
        assertEquals(newId, a.clientid);
        assertNotEquals(0, a.exchangeFlags & Nfs4.EXCHGID4_FLAG_CONFIRMED_R);
    }

    /** §18.35.4 case 3: another principal with the owner of a confirmed record. */
    @Test
    void anotherPrincipalWithAConfirmedOwnerIsClidInuseWhileItHoldsState() throws Exception {
        Nfs4TestClient a = client("collide");
        a.mount();
        Nfs4TestClient.Reply r = a.call(a.sequenced().putrootfh().open("o", Nfs4.OPEN4_SHARE_ACCESS_BOTH, true, "f")
                .getfh());
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        byte[] open = r.open()[0];
        byte[] fh = r.fh();

        Nfs4TestClient b = client("collide");
        b.options = as(4321, "intruder");
        assertEquals(Nfs4.NFS4ERR_CLID_INUSE, b.exchangeId(0), "the record holds state in its lease");
        assertEquals(0, a.call(a.sequenced().putfh(fh).close(open)).status, "and was left alone");

        assertEquals(0, b.exchangeId(0), "no state left: the collision replaces the record");
        assertNotEquals(a.clientid, b.clientid);
        assertEquals(Nfs4.NFS4ERR_BADSESSION, a.call(a.sequenced()).next(Nfs4.OP_SEQUENCE));
    }

    /** §18.35.4 cases 6 to 9: an update needs the confirmed record, its verifier and its principal. */
    @Test
    void updateNeedsTheConfirmedRecordItsVerifierAndItsPrincipal() throws Exception {
        int update = Nfs4.EXCHGID4_FLAG_UPD_CONFIRMED_REC_A;
        Nfs4TestClient a = client("update");
        assertEquals(Nfs4.NFS4ERR_NOENT, a.exchangeId(update), "no confirmed record");
        a.mount();
        long id = a.clientid;
        assertEquals(0, a.exchangeId(update));
        assertEquals(id, a.clientid);
        assertNotEquals(0, a.exchangeFlags & Nfs4.EXCHGID4_FLAG_CONFIRMED_R);
        byte[] verifier = a.verifier;
        a.verifier = new byte[] {9, 9, 9, 9, 9, 9, 9, 9};
        assertEquals(Nfs4.NFS4ERR_NOT_SAME, a.exchangeId(update));
        a.verifier = verifier;
        a.options = as(999, "elsewhere");
        assertEquals(Nfs4.NFS4ERR_PERM, a.exchangeId(update));
        a.options = Nfs4TestClient.OPTIONS;
        assertEquals(0, a.call(a.sequenced()).status, "the record was left intact");
    }

    /** §18.35.3: undefined eia_flags bits, and CONFIRMED_R (a result-only flag), are INVAL. */
    @Test
    void exchangeIdFlagsAClientMayNotSetAreInval() throws Exception {
        Nfs4TestClient a = client("flags");
        assertEquals(Nfs4.NFS4ERR_INVAL, a.exchangeId(0x8));
        assertEquals(Nfs4.NFS4ERR_INVAL, a.exchangeId(0x00100000));
        assertEquals(Nfs4.NFS4ERR_INVAL, a.exchangeId(Nfs4.EXCHGID4_FLAG_CONFIRMED_R));
        // What the Linux client sends: SUPP_MOVED_REFER | SUPP_MOVED_MIGR | BIND_PRINC_STATEID; and a pNFS role.
        assertEquals(0, a.exchangeId(0x103));
        assertEquals(0, a.exchangeId(0x00020000));
    }

    // ------------------------------------------------------------------ sessions (§18.36, §2.10.6)

    /** §18.36.3: undefined csa_flags bits are INVAL (and the CREATE_SESSION sequence does not advance). */
    @Test
    void createSessionUndefinedFlagsAreInval() throws Exception {
        Nfs4TestClient a = client("csflags");
        a.exchangeId();
        assertEquals(Nfs4.NFS4ERR_INVAL, a.createSession(BACK_CHAN | 0x10, FORE, BACK,
                Nfs4TestClient::rootSecParms).createSessionStatus);
        assertEquals(0, a.createSession(BACK_CHAN | Nfs4.CREATE_SESSION4_FLAG_CONN_RDMA, FORE, BACK,
                Nfs4TestClient::rootSecParms).createSessionStatus);
    }

    /**
     * §18.36.3, §2.10.6.4: a fore channel ca_maxresponsesize of 400 is accepted; a COMPOUND whose reply would be
     * larger gets REP_TOO_BIG on the operation that overflows it.
     */
    @Test
    void smallForeChannelResponseSizeIsAcceptedAndLargerRepliesAreRepTooBig() throws Exception {
        Nfs4TestClient a = client("small-reply");
        a.exchangeId();
        Nfs4TestClient.Reply r = a.createSession(BACK_CHAN, new ChannelAttrs(0, (1 << 20) + 8192, 400, 400, 8, 16),
                BACK, Nfs4TestClient::rootSecParms);
        assertEquals(0, r.createSessionStatus);
        r.in.readInt(); // csr_flags
        r.in.readInt(); // ca_headerpadsize
        r.in.readInt(); // ca_maxrequestsize
        assertEquals(400, r.in.readInt(), "the server keeps the client's ca_maxresponsesize");
        reclaimComplete(a);
        for (int i = 0; i < 12; i++) {
            assertEquals(0, a.call(a.sequenced().putrootfh().mkdir("a-directory-with-a-long-name-" + i)).status);
        }
        Nfs4TestClient.Compound readdir = a.sequenced().putrootfh().op(Nfs4.OP_READDIR);
        readdir.w.writeHyper(0).writeFixedOpaque(new byte[8]).writeInt(8192).writeInt(8192).writeInt(0);
        r = a.call(readdir);
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        assertEquals(Nfs4.NFS4ERR_REP_TOO_BIG, r.next(Nfs4.OP_READDIR));
        assertEquals(3, r.count);

        byte[] data = Nfs4ServerTest.pattern(1000, 3);
        byte[] fh = createFile(a, "f", data);
        r = a.call(a.sequenced().putrootfh().open("o", Nfs4.OPEN4_SHARE_ACCESS_READ, false, "f"));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        byte[] st = r.open()[0];
        r = a.call(a.sequenced().putfh(fh).read(st, 0, 1000));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH);
        assertEquals(Nfs4.NFS4ERR_REP_TOO_BIG, r.next(Nfs4.OP_READ));
        assertArrayEquals(Arrays.copyOf(data, 100), a.read(fh, st, 0, 100), "a READ that fits");
    }

    /**
     * §18.36.3, §2.10.6.4: a back channel that cannot carry our callbacks (CB_SEQUENCE + CB_RECALL) is TOOSMALL:
     * ca_maxrequestsize 10 with ca_maxoperations 1, and each of the two alone.
     */
    @Test
    void backChannelTooSmallForACallbackIsTooSmall() throws Exception {
        Nfs4TestClient a = client("small-back");
        a.exchangeId();
        assertEquals(Nfs4.NFS4ERR_TOOSMALL, a.createSession(BACK_CHAN, FORE, new ChannelAttrs(0, 10, 4068, 0, 1, 16),
                Nfs4TestClient::rootSecParms).createSessionStatus);
        assertEquals(Nfs4.NFS4ERR_TOOSMALL, a.createSession(BACK_CHAN, FORE, new ChannelAttrs(0, 10, 4068, 0, 2, 16),
                Nfs4TestClient::rootSecParms).createSessionStatus);
        assertEquals(Nfs4.NFS4ERR_TOOSMALL, a.createSession(BACK_CHAN, FORE,
                new ChannelAttrs(0, 4068, 4068, 0, 1, 16), Nfs4TestClient::rootSecParms).createSessionStatus);
        assertEquals(0, a.createSession(BACK_CHAN, FORE, BACK, Nfs4TestClient::rootSecParms).createSessionStatus);
    }

    /** §18.36.4 phase 3: CREATE_SESSION for a client id from another principal than the one that made it. */
    @Test
    void createSessionFromAnotherPrincipalIsClidInuse() throws Exception {
        Nfs4TestClient a = client("cs-principal");
        a.exchangeId();
        a.options = as(77, "elsewhere");
        assertEquals(Nfs4.NFS4ERR_CLID_INUSE, a.createSession(BACK_CHAN, FORE, BACK, Nfs4TestClient::rootSecParms)
                .createSessionStatus, "the confirming CREATE_SESSION");
        a.options = Nfs4TestClient.OPTIONS;
        assertEquals(0, a.createSession(BACK_CHAN, FORE, BACK, Nfs4TestClient::rootSecParms).createSessionStatus);
        a.options = as(77, "elsewhere");
        assertEquals(Nfs4.NFS4ERR_CLID_INUSE, a.createSession(0, FORE, BACK, Nfs4TestClient::rootSecParms)
                .createSessionStatus, "a second session");
        a.options = Nfs4TestClient.OPTIONS;
        assertEquals(0, a.createSession(0, FORE, BACK, Nfs4TestClient::rootSecParms).createSessionStatus);
    }

    /** §2.10.6.1.3, §18.46.3: sa_cachethis with a 10-byte ca_maxresponsesize_cached. */
    @Test
    void cacheThisOverTheCachedReplySizeIsRepTooBigToCache() throws Exception {
        Nfs4TestClient a = client("small-cache");
        a.exchangeId();
        Nfs4TestClient.Reply r = a.createSession(BACK_CHAN, new ChannelAttrs(0, (1 << 20) + 8192, 1 << 20, 10, 8, 16),
                BACK, Nfs4TestClient::rootSecParms);
        assertEquals(0, r.createSessionStatus);
        r = a.call(a.sequence(a.sessionId, a.slotSeq + 1, 0, true).putrootfh());
        assertEquals(Nfs4.NFS4ERR_REP_TOO_BIG_TO_CACHE, r.next(Nfs4.OP_SEQUENCE));
        assertEquals(1, r.count);
        // The slot did not advance; without sa_cachethis the same sequence id is fine.
        assertEquals(0, a.call(a.sequenced().putrootfh()).status);
    }

    // ------------------------------------------------------------------ callbacks (§18.36.3, §18.33)

    /** Gets a read delegation on {@code fh} for {@code a}, has {@code b} conflict with it; returns the recall. */
    private static Nfs4TestClient.Recall recall(Nfs4TestClient a, Nfs4TestClient b, String name) throws Exception {
        Nfs4TestClient.Reply r = a.call(a.sequenced().putrootfh().open("a", Nfs4.OPEN4_SHARE_ACCESS_READ, false,
                name));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        byte[] deleg = r.open()[1];
        assertNotNull(deleg, "a read delegation");
        r = b.call(b.sequenced().putrootfh().open("b", Nfs4.OPEN4_SHARE_ACCESS_WRITE, false, name));
        assertEquals(Nfs4.NFS4ERR_DELAY, r.status);
        Nfs4TestClient.Recall recall = a.awaitRecall(10);
        assertNotNull(recall, "CB_RECALL");
        assertArrayEquals(deleg, recall.stateid());
        assertEquals(0, a.call(a.sequenced().putfh(recall.fh()).stateidOp(Nfs4.OP_DELEGRETURN, recall.stateid()))
                .status);
        r = b.call(b.sequenced().putrootfh().open("b", Nfs4.OPEN4_SHARE_ACCESS_WRITE, false, name).getfh());
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        byte[] st = r.open()[0];
        assertEquals(0, b.call(b.sequenced().putfh(r.fh()).close(st)).status);
        return recall;
    }

    /**
     * §18.36.3 csa_sec_parms, §18.33 bca_sec_parms: callbacks carry a credential the client offered, AUTH_SYS with
     * its uid, gid and machine name as given, then AUTH_NONE once BACKCHANNEL_CTL offers only that.
     */
    @Test
    void callbacksCarryTheCredentialTheClientOffered() throws Exception {
        Nfs4TestClient a = client("cb-a");
        Nfs4TestClient b = client("cb-b");
        a.exchangeId();
        assertEquals(0, a.createSession(BACK_CHAN, FORE, BACK, w -> w.writeInt(1)
                .writeInt(1).writeInt(7).writeString("cb-machine").writeInt(1234).writeInt(5678).writeInt(1)
                .writeInt(42)).createSessionStatus);
        reclaimComplete(a);
        b.mount();
        createFile(a, "f", new byte[10]);

        recall(a, b, "f");
        OpaqueAuth cred = a.callbackCredentials.poll(10, TimeUnit.SECONDS);
        assertNotNull(cred);
        assertEquals(AuthFlavor.AUTH_SYS, cred.flavor());
        AuthSysCredential sys = AuthSysCredential.decode(cred);
        assertEquals(1234, sys.uid());
        assertEquals(5678, sys.gid());
        assertEquals("cb-machine", sys.machineName());
        assertArrayEquals(new int[] {42}, sys.gids());
        assertEquals(7, sys.stamp());

        Nfs4TestClient.Compound ctl = a.sequenced().op(Nfs4.OP_BACKCHANNEL_CTL);
        ctl.w.writeInt(Nfs4TestClient.CB_PROGRAM).writeInt(1).writeInt(0); // AUTH_NONE only
        assertEquals(0, a.call(ctl).status);
        recall(a, b, "f");
        cred = a.callbackCredentials.poll(10, TimeUnit.SECONDS);
        assertNotNull(cred);
        assertEquals(AuthFlavor.AUTH_NONE, cred.flavor());
    }

    /**
     * An RPCSEC_GSS handle the server never made is NOENT (RFC 5661 §18.36.3); a session whose client offered no
     * callback security cannot be called back: no delegation.
     */
    @Test
    void noUsableCallbackCredentialMeansNoDelegation() throws Exception {
        Nfs4TestClient a = client("cb-gss");
        a.exchangeId();
        assertEquals(Nfs4.NFS4ERR_NOENT, a.createSession(BACK_CHAN, FORE, BACK, w -> w.writeInt(1)
                .writeInt(6).writeInt(1).writeOpaque(new byte[4]).writeOpaque(new byte[4])).createSessionStatus);
        assertEquals(0, a.createSession(BACK_CHAN, FORE, BACK, w -> w.writeInt(0)).createSessionStatus);
        reclaimComplete(a);
        createFile(a, "f", new byte[10]);
        Nfs4TestClient.Reply r = a.call(a.sequenced().putrootfh().open("a", Nfs4.OPEN4_SHARE_ACCESS_READ, false,
                "f"));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        assertNull(r.open()[1]);
    }

    // ------------------------------------------------------------------ delegation answers (§18.16.3)

    /** OPEN with {@code access}: [delegation type, ond_why or -1]. */
    private static int[] openDelegation(Nfs4TestClient c, int access, String name) throws Exception {
        Nfs4TestClient.Reply r = c.call(c.sequenced().putrootfh().open("o", access, false, name));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        int status = r.next(Nfs4.OP_OPEN);
        if (status != 0) {
            return new int[] {-status, -1};
        }
        r.in.readFixedOpaque(16);
        r.in.readBool();
        r.in.readHyper();
        r.in.readHyper();
        r.in.readInt();
        Attributes.readBitmap(r.in);
        int type = r.in.readInt();
        int why = -1;
        if (type == Nfs4.OPEN_DELEGATE_NONE_EXT) {
            why = r.in.readInt();
            if (why == Nfs4.WND4_CONTENTION || why == Nfs4.WND4_RESOURCE) {
                assertFalse(r.in.readBool(), "no push or signal promised");
            }
        }
        return new int[] {type, why};
    }

    /** §18.16.3, §10.4.7: an OPEN that says what it wants hears why it gets no delegation. */
    @Test
    void openWithAWantTheServerDoesNotSatisfyIsDelegateNoneExtWithTheReason() throws Exception {
        Nfs4TestClient a = client("want");
        a.exchangeId();
        a.createSession(false, 8, (1 << 20) + 8192); // no backchannel: no delegations for this client
        reclaimComplete(a);
        createFile(a, "w", new byte[10]);
        int read = Nfs4.OPEN4_SHARE_ACCESS_READ;
        assertArrayEquals(new int[] {Nfs4.OPEN_DELEGATE_NONE_EXT, Nfs4.WND4_RESOURCE},
                openDelegation(a, read | Nfs4.OPEN4_SHARE_ACCESS_WANT_READ_DELEG, "w"));
        assertArrayEquals(new int[] {Nfs4.OPEN_DELEGATE_NONE_EXT, Nfs4.WND4_RESOURCE},
                openDelegation(a, read | Nfs4.OPEN4_SHARE_ACCESS_WANT_ANY_DELEG, "w"));
        assertArrayEquals(new int[] {Nfs4.OPEN_DELEGATE_NONE_EXT, Nfs4.WND4_NOT_WANTED},
                openDelegation(a, read | Nfs4.OPEN4_SHARE_ACCESS_WANT_NO_DELEG, "w"));
        assertArrayEquals(new int[] {Nfs4.OPEN_DELEGATE_NONE_EXT, Nfs4.WND4_WRITE_DELEG_NOT_SUPP_FTYPE},
                openDelegation(a, read | Nfs4.OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG, "w"));
        assertArrayEquals(new int[] {Nfs4.OPEN_DELEGATE_NONE_EXT, Nfs4.WND4_CANCELLED},
                openDelegation(a, read | Nfs4.OPEN4_SHARE_ACCESS_WANT_CANCEL, "w"));
        assertArrayEquals(new int[] {Nfs4.OPEN_DELEGATE_NONE, -1}, openDelegation(a, read, "w"), "no want said");
        assertArrayEquals(new int[] {-Nfs4.NFS4ERR_INVAL, -1}, openDelegation(a, read | 0x0800, "w"),
                "an undefined want");

        Nfs4TestClient b = client("want-b");
        b.mount();
        assertArrayEquals(new int[] {Nfs4.OPEN_DELEGATE_NONE_EXT, Nfs4.WND4_CONTENTION},
                openDelegation(b, Nfs4.OPEN4_SHARE_ACCESS_BOTH | Nfs4.OPEN4_SHARE_ACCESS_WANT_READ_DELEG, "w"),
                "a writer gets no read delegation");
        createFile(a, "w2", new byte[10]);
        assertEquals(Nfs4.OPEN_DELEGATE_READ,
                openDelegation(b, read | Nfs4.OPEN4_SHARE_ACCESS_WANT_READ_DELEG, "w2")[0], "a want it satisfies");
    }

    // ------------------------------------------------------------------ current stateid (§16.2.3.1.2)

    /** A LOOKUP changes the current file handle and resets the current stateid: CLOSE with it fails. */
    @Test
    void closeWithTheCurrentStateidAfterALookupFails() throws Exception {
        Nfs4TestClient a = client("current");
        a.mount();
        assertEquals(0, a.call(a.sequenced().putrootfh().mkdir("d")).status);
        Nfs4TestClient.Reply r = a.call(a.sequenced().putrootfh().lookup("d")
                .open("o", Nfs4.OPEN4_SHARE_ACCESS_BOTH, true, "f").putrootfh().lookup("d").lookup("f")
                .close(CURRENT_STATEID));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH).ok(Nfs4.OP_LOOKUP);
        r.open();
        r.ok(Nfs4.OP_PUTROOTFH).ok(Nfs4.OP_LOOKUP).ok(Nfs4.OP_LOOKUP);
        assertEquals(Nfs4.NFS4ERR_BAD_STATEID, r.next(Nfs4.OP_CLOSE));
        // Right after OPEN, and across SAVEFH/RESTOREFH (which keep it with the file handle), it is the open's.
        r = a.call(a.sequenced().putrootfh().lookup("d").open("o", Nfs4.OPEN4_SHARE_ACCESS_BOTH, false, "f")
                .op(Nfs4.OP_SAVEFH).putrootfh().op(Nfs4.OP_RESTOREFH).close(CURRENT_STATEID));
        assertEquals(0, r.status);
    }

    // ------------------------------------------------------------------ open files without a name (§18.25.4)

    /** A RENAME over an open file, or a REMOVE of one: it stays usable through its open state until CLOSE. */
    @Test
    void anOpenFileOutlivesItsNameUntilClose() throws Exception {
        Nfs4TestClient a = client("unlinked");
        a.mount();
        byte[] data = Nfs4ServerTest.pattern(3000, 5);
        for (String how : new String[] {"rename", "remove"}) {
            Nfs4TestClient.Reply r = a.call(a.sequenced().putrootfh().open("o", Nfs4.OPEN4_SHARE_ACCESS_BOTH, true,
                    "victim").getfh());
            r.sequenceFlags();
            r.ok(Nfs4.OP_PUTROOTFH);
            byte[] st = r.open()[0];
            byte[] fh = r.fh();
            assertEquals(0, a.call(a.sequenced().putfh(fh).write(st, 0, data, Nfs4.FILE_SYNC4)).status);
            if (how.equals("rename")) {
                createFile(a, "other", new byte[1]);
                Nfs4TestClient.Compound rename = a.sequenced().putrootfh().op(Nfs4.OP_SAVEFH).putrootfh()
                        .op(Nfs4.OP_RENAME);
                rename.w.writeString("other").writeString("victim");
                assertEquals(0, a.call(rename).status, how);
                r = a.call(a.sequenced().putrootfh().lookup("victim").getfh());
                r.sequenceFlags();
                r.ok(Nfs4.OP_PUTROOTFH).ok(Nfs4.OP_LOOKUP);
                assertFalse(Arrays.equals(fh, r.fh()), "the name is another file's now");
            } else {
                assertEquals(0, a.call(a.sequenced().putrootfh().remove("victim")).status, how);
            }
            assertArrayEquals(data, a.read(fh, st, 0, 3000), how + ": still readable through its handle");
            assertEquals(0, a.call(a.sequenced().putfh(fh).close(st)).status, how + ": CLOSE");
            r = a.call(a.sequenced().putfh(fh));
            r.sequenceFlags();
            assertEquals(Nfs4.NFS4ERR_STALE, r.next(Nfs4.OP_PUTFH), how + ": gone after the last CLOSE");
        }
    }

    // ------------------------------------------------------------------ grace (§8.4.2, §18.51)

    /** OPEN with CLAIM_PREVIOUS (a reclaim) of {@code fh}: its status. */
    private static int reclaim(Nfs4TestClient c, byte[] fh) throws Exception {
        Nfs4TestClient.Compound open = c.sequenced().putfh(fh).op(Nfs4.OP_OPEN);
        open.w.writeInt(0).writeInt(Nfs4.OPEN4_SHARE_ACCESS_READ).writeInt(0).writeHyper(0).writeOpaque(new byte[1])
                .writeInt(Nfs4.OPEN4_NOCREATE).writeInt(Nfs4.CLAIM_PREVIOUS).writeInt(Nfs4.OPEN_DELEGATE_NONE);
        Nfs4TestClient.Reply r = c.call(open);
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH);
        return r.next(Nfs4.OP_OPEN);
    }

    /**
     * No grace period after a fresh start (samples/README.md): nothing is reclaimable, so a reclaim is NO_GRACE
     * before and after RECLAIM_COMPLETE, and an ordinary OPEN before RECLAIM_COMPLETE proceeds (never GRACE).
     */
    @Test
    void noGracePeriodAfterAFreshStartAnsweredConsistently() throws Exception {
        Nfs4TestClient a = client("grace");
        a.exchangeId();
        a.createSession(true, 8, (1 << 20) + 8192);
        Nfs4TestClient.Reply r = a.call(a.sequenced().putrootfh().open("o", Nfs4.OPEN4_SHARE_ACCESS_BOTH, true, "g")
                .getfh());
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        r.open();
        byte[] fh = r.fh();
        assertEquals(Nfs4.NFS4ERR_NO_GRACE, reclaim(a, fh), "before RECLAIM_COMPLETE");
        reclaimComplete(a);
        assertEquals(Nfs4.NFS4ERR_NO_GRACE, reclaim(a, fh), "after RECLAIM_COMPLETE");
    }
}
