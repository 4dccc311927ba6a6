package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.message.AuthSysCredential;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;

import java.util.Arrays;

/**
 * Client and session operations (RFC 5661 §18.35 EXCHANGE_ID, §18.36 CREATE_SESSION, §18.46 SEQUENCE, §18.34
 * BIND_CONN_TO_SESSION, §18.33 BACKCHANNEL_CTL, §18.37 DESTROY_SESSION, §18.50 DESTROY_CLIENTID, §18.51
 * RECLAIM_COMPLETE: there is no grace period, see {@link OpenOps}). SEQUENCE keeps
 * the slot table and reply cache of §2.10.6; CREATE_SESSION enables the connection's backchannel when the client
 * asks for it (CONN_BACK_CHAN) and the transport has one, and echoes the client's back-channel response size.
 * Stateless: everything lives in {@link Nfs4State}; runs with its lock held.
 */
final class SessionOps {
    private SessionOps() {
    }

    /** Fore-channel limits this server offers (ca_maxrequests, ca_maxoperations, cached reply size). */
    static final int MAX_SLOTS = 64;
    static final int MAX_OPERATIONS = 16;
    static final int MAX_CACHED = 64 * 1024;
    /** Largest request and reply: the largest READ/WRITE plus room for the rest of the compound. */
    static final int MAX_MESSAGE = Nfs4.MAX_IO + 64 * 1024;
    private static final byte[] SERVER_OWNER = "netty-rpcrdma-nfs4-sample".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    static void register(Operation[] ops) {
        ops[Nfs4.OP_EXCHANGE_ID] = SessionOps::exchangeId;
        ops[Nfs4.OP_CREATE_SESSION] = SessionOps::createSession;
        ops[Nfs4.OP_SEQUENCE] = SessionOps::sequence;
        ops[Nfs4.OP_BIND_CONN_TO_SESSION] = SessionOps::bindConnToSession;
        ops[Nfs4.OP_BACKCHANNEL_CTL] = SessionOps::backchannelCtl;
        ops[Nfs4.OP_DESTROY_SESSION] = SessionOps::destroySession;
        ops[Nfs4.OP_DESTROY_CLIENTID] = SessionOps::destroyClientid;
        ops[Nfs4.OP_RECLAIM_COMPLETE] = SessionOps::reclaimComplete;
    }

    /**
     * RFC 5661 §18.35: finds or makes the client record for an owner, verifier and principal, following the case
     * table of §18.35.4: a retry from the same incarnation gets its confirmed record (case 2); a new incarnation
     * (new verifier, same principal) gets a new unconfirmed record and client id, and the old record and its state
     * go only when CREATE_SESSION confirms the new one (case 5); another principal with the owner of a confirmed
     * record is a collision: CLID_INUSE while that record holds state in its lease, else the old record goes
     * (case 3). An update (UPD_CONFIRMED_REC_A) needs the confirmed record (NOENT), its verifier (NOT_SAME) and
     * its principal (PERM) (cases 6 to 9). Undefined flag bits and CONFIRMED_R are INVAL (§18.35.3).
     */
    static void exchangeId(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        byte[] verifier = in.readFixedOpaque(Nfs4.VERIFIER_SIZE);
        byte[] owner = in.readOpaque(Nfs4.OPAQUE_LIMIT);
        int flags = in.readInt();
        int protect = in.readInt();
        if (protect != Nfs4.SP4_NONE) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_NOTSUPP, "state protection " + protect);
        }
        int impl = in.readArrayLength(1, 4);
        for (int i = 0; i < impl; i++) {
            in.readString(Nfs4.OPAQUE_LIMIT);
            in.readString(Nfs4.OPAQUE_LIMIT);
            in.readHyper();
            in.readInt();
        }
        if ((flags & ~Nfs4.EXCHGID4_FLAG_MASK_A) != 0) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL, "eia_flags " + Integer.toHexString(flags));
        }
        String principal = principal(ctx);
        Nfs4State state = ctx.state;
        ClientRecord confirmed = state.confirmed(owner);
        ClientRecord c;
        if ((flags & Nfs4.EXCHGID4_FLAG_UPD_CONFIRMED_REC_A) != 0) {
            if (confirmed == null) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_NOENT); // case 7
            }
            if (!Arrays.equals(confirmed.verifier, verifier)) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_NOT_SAME); // case 8
            }
            if (!confirmed.principal.equals(principal)) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_PERM); // case 9
            }
            c = confirmed; // case 6: nothing of ours to update
        } else if (confirmed != null && !confirmed.principal.equals(principal)) {
            // Case 3, a collision of owners: the old record keeps state it holds within its lease.
            if (!confirmed.states.isEmpty() && state.now() - confirmed.lastRenew <= state.leaseNanos()) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_CLID_INUSE, "owner held by " + confirmed.principal);
            }
            state.destroyClient(confirmed);
            c = state.newClient(owner, verifier, principal);
        } else if (confirmed != null && Arrays.equals(confirmed.verifier, verifier)) {
            c = confirmed; // case 2: a retry, or trunking
        } else {
            c = state.newClient(owner, verifier, principal); // cases 1, 4 and 5
        }
        c.lastRenew = state.now();
        XdrWriter w = out.writer();
        w.writeHyper(c.clientid).writeInt(c.createSessionSeq)
                .writeInt(Nfs4.EXCHGID4_FLAG_USE_NON_PNFS | (c.confirmed ? Nfs4.EXCHGID4_FLAG_CONFIRMED_R : 0))
                .writeInt(Nfs4.SP4_NONE);
        w.writeHyper(0).writeOpaque(SERVER_OWNER);
        w.writeOpaque(SERVER_OWNER);
        w.writeInt(1).writeString("rpcrdma.dev").writeString("netty-rpcrdma NFSv4.1 sample").writeHyper(0).writeInt(0);
    }

    /**
     * The principal of a call, as the client record keeps it (RFC 5661 §18.35.4 "principal"): the RPCSEC_GSS
     * principal, the AUTH_SYS uid and machine name, or "none".
     */
    static String principal(CompoundContext ctx) {
        if (ctx.call.auth() != null && ctx.call.auth().principal() != null) {
            return "gss:" + ctx.call.auth().principal();
        }
        AuthSysCredential cred = ctx.call.authSys();
        return cred == null ? "none" : cred.uid() + "@" + cred.machineName();
    }

    /**
     * The smallest fore-channel ca_maxrequestsize: a call header with AUTH_NONE, a COMPOUND header with an empty
     * tag and SEQUENCE's arguments (RFC 5661 §18.36.3: a channel on which no request fits is TOOSMALL).
     */
    static final int MIN_FORE_REQUEST = 40 + 12 + 36;
    /** The smallest fore-channel ca_maxresponsesize: a reply header, a COMPOUND header and SEQUENCE's result. */
    static final int MIN_FORE_RESPONSE = 24 + 12 + 44;
    /** The back-channel request size of our callbacks without the call header: CB_SEQUENCE and CB_RECALL. */
    static final int CALLBACK_BODY = 16 + 40 + 40;
    /** The smallest back-channel ca_maxresponsesize: a CB_COMPOUND reply to CB_SEQUENCE + CB_RECALL. */
    static final int MIN_CALLBACK_RESPONSE = 24 + 12 + 40 + 8;

    /**
     * RFC 5661 §18.36: confirms the client (its old incarnation goes, §18.35.4 case 5), makes the session,
     * negotiates channel attributes, binds the backchannel. A client record is used by the principal that made it
     * only (CLID_INUSE, §18.36.4 phase 3); undefined csa_flags are INVAL; the fore channel takes any size a
     * SEQUENCE fits in (a COMPOUND whose reply does not fit gets REP_TOO_BIG, {@link CompoundProcessor}); the back
     * channel must carry our callbacks, CB_SEQUENCE + CB_RECALL with the credential chosen from csa_sec_parms
     * (TOOSMALL otherwise, §18.36.3, §2.10.6.4).
     */
    static void createSession(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        long clientid = in.readHyper();
        int sequence = in.readInt();
        int flags = in.readInt();
        ChannelAttrs fore = ChannelAttrs.decode(in);
        ChannelAttrs back = ChannelAttrs.decode(in);
        int cbProgram = in.readInt();
        CallbackSecurity cbSecurity = CallbackSecurity.decode(in, ctx.server.gss());
        Nfs4State state = ctx.state;
        ClientRecord c = state.client(clientid);
        if (sequence == c.createSessionSeq - 1 && c.lastSession != null) {
            writeSession(out.writer(), c.lastSession, sequence, c.lastSessionFlags); // a retransmission (§18.36.4)
            return;
        }
        if (sequence != c.createSessionSeq) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_SEQ_MISORDERED);
        }
        if (!c.principal.equals(principal(ctx))) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_CLID_INUSE, c + " belongs to " + c.principal);
        }
        if ((flags & ~Nfs4.CREATE_SESSION4_FLAG_MASK) != 0) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL, "csa_flags " + Integer.toHexString(flags));
        }
        int callbackSize = (cbSecurity != null ? cbSecurity : CallbackSecurity.NONE).headerSize() + CALLBACK_BODY;
        if (Integer.compareUnsigned(fore.maxRequestSize(), MIN_FORE_REQUEST) < 0
                || Integer.compareUnsigned(fore.maxResponseSize(), MIN_FORE_RESPONSE) < 0 || fore.maxRequests() == 0
                || fore.maxOperations() == 0
                || back.maxOperations() < 2 || back.maxRequests() == 0
                || Integer.compareUnsigned(back.maxRequestSize(), callbackSize) < 0
                || Integer.compareUnsigned(back.maxResponseSize(), MIN_CALLBACK_RESPONSE) < 0) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_TOOSMALL);
        }
        ChannelAttrs foreReply = new ChannelAttrs(0, minUnsigned(fore.maxRequestSize(), MAX_MESSAGE),
                minUnsigned(fore.maxResponseSize(), MAX_MESSAGE), minUnsigned(fore.maxResponseSizeCached(), MAX_CACHED),
                minUnsigned(fore.maxOperations(), MAX_OPERATIONS), minUnsigned(fore.maxRequests(), MAX_SLOTS));
        RpcBackchannel bc = ctx.call.backchannel();
        int backRequest = back.maxRequestSize();
        if (bc != null) {
            backRequest = minUnsigned(backRequest, bc.maxMessageSize());
        }
        // The Linux client checks the back channel strictly (nfs4_verify_back_channel_attrs): its own
        // ca_maxresponsesize back (or more), ca_maxoperations and ca_maxrequests back exactly. Only slot 0 is used.
        ChannelAttrs backReply = new ChannelAttrs(0, backRequest, back.maxResponseSize(), 0,
                back.maxOperations(), back.maxRequests());
        state.confirm(c);
        if (ctx.session != null && !ctx.session.client.sessions.contains(ctx.session)) {
            ctx.slot = null; // this compound's session belonged to the old incarnation: its cache is gone
        }
        c.lastRenew = state.now();
        c.createSessionSeq++;
        Session s = state.newSession(c, foreReply, backReply, cbProgram, cbSecurity);
        int replyFlags = 0;
        if ((flags & Nfs4.CREATE_SESSION4_FLAG_CONN_BACK_CHAN) != 0 && bc != null) {
            bc.enable();
            s.backChannel = ctx.call.channel();
            replyFlags |= Nfs4.CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
        }
        if (c.lastSession != null && !c.sessions.contains(c.lastSession)) {
            c.lastSession.destroy();
        }
        c.lastSession = s;
        c.lastSessionFlags = replyFlags;
        writeSession(out.writer(), s, sequence, replyFlags);
    }

    private static int minUnsigned(int a, int b) {
        return Integer.compareUnsigned(a, b) <= 0 ? a : b;
    }

    /**
     * RFC 5661 §18.33: replaces the session's callback program and the credential callbacks carry (chosen again
     * from bca_sec_parms, {@link CallbackSecurity}; an offer with nothing usable leaves the previous one).
     */
    static void backchannelCtl(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        int cbProgram = in.readInt();
        CallbackSecurity cbSecurity = CallbackSecurity.decode(in, ctx.server.gss());
        Session s = ctx.session;
        if (s == null) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_OP_NOT_IN_SESSION);
        }
        s.cbProgram = cbProgram;
        if (cbSecurity != null) {
            s.cbSecurity = cbSecurity;
        }
    }

    private static void writeSession(XdrWriter w, Session s, int sequence, int flags) {
        w.writeFixedOpaque(s.id).writeInt(sequence).writeInt(flags);
        s.fore.encode(w);
        s.back.encode(w);
    }

    /** SEQUENCE4resok's size: session id, sequence, slot, two highest slot ids, status flags. */
    private static final int SEQUENCE_RESULT = 16 + 5 * 4;

    /** RFC 5661 §18.46 and §2.10.6: slot checks, the reply cache, lease renewal, the status flags. */
    static void sequence(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        byte[] sessionId = in.readFixedOpaque(Nfs4.SESSIONID_SIZE);
        int seqid = in.readInt();
        int slotId = in.readInt();
        int highest = in.readInt();
        boolean cacheThis = in.readBool();
        Session s = ctx.state.session(sessionId);
        if (slotId < 0 || slotId >= s.slots.length) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_BADSLOT);
        }
        Session.Slot slot = s.slots[slotId];
        if (seqid == slot.seqid && slot.seqid != 0) {
            // A retransmission (§2.10.6.1.3): the cached reply, or RETRY_UNCACHED_REP.
            if (slot.cachedReply == null) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_RETRY_UNCACHED_REP);
            }
            ctx.replay = slot.cachedReply.retainedDuplicate();
            return;
        }
        if (seqid != slot.seqid + 1) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_SEQ_MISORDERED);
        }
        if (ctx.opCount > s.fore.maxOperations()) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_TOO_MANY_OPS);
        }
        if (ctx.requestSize > s.fore.maxRequestSize()) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_REQ_TOO_BIG);
        }
        // The smallest reply, this SEQUENCE's, must fit the session's reply size, and its cached reply size when
        // the client asks for caching (RFC 5661 §2.10.6.4, §18.46.3); the slot does not advance otherwise.
        long smallest = ctx.replyHeader + (long) out.inlineLength() + SEQUENCE_RESULT;
        if (smallest > s.fore.maxResponseSize()) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_REP_TOO_BIG);
        }
        if (cacheThis && smallest > s.fore.maxResponseSizeCached()) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_REP_TOO_BIG_TO_CACHE);
        }
        slot.seqid = seqid;
        slot.cache(null);
        ctx.slot = slot;
        ctx.cacheThis = cacheThis;
        ctx.session = s;
        ClientRecord c = s.client;
        c.lastRenew = ctx.state.now();
        int flags = 0;
        if (s.backChannel != null && !s.backchannelUp()) {
            flags |= 0x200; // SEQ4_STATUS_CB_PATH_DOWN_SESSION: the client rebinds with BIND_CONN_TO_SESSION
        }
        if (c.hasRevokedState()) {
            flags |= Nfs4.SEQ4_STATUS_RECALLABLE_STATE_REVOKED;
        }
        int top = s.slots.length - 1;
        out.writer().writeFixedOpaque(sessionId).writeInt(seqid).writeInt(slotId).writeInt(top).writeInt(top)
                .writeInt(flags);
    }

    /** RFC 5661 §18.34: binds this connection to a session, for callbacks when asked and possible. */
    static void bindConnToSession(CompoundContext ctx, XdrReader in, XdrPayload out)
            throws XdrException, Nfs4Exception {
        byte[] sessionId = in.readFixedOpaque(Nfs4.SESSIONID_SIZE);
        int dir = in.readInt();
        in.readBool();
        Session s = ctx.state.session(sessionId);
        int replyDir;
        RpcBackchannel bc = ctx.call.backchannel();
        switch (dir) {
            case Nfs4.CDFC4_FORE -> replyDir = Nfs4.CDFS4_FORE;
            case Nfs4.CDFC4_BACK, Nfs4.CDFC4_FORE_OR_BOTH, Nfs4.CDFC4_BACK_OR_BOTH -> {
                if (bc != null) {
                    bc.enable();
                    s.backChannel = ctx.call.channel();
                    replyDir = dir == Nfs4.CDFC4_BACK ? Nfs4.CDFS4_BACK : Nfs4.CDFS4_BOTH;
                } else if (dir == Nfs4.CDFC4_BACK) {
                    throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL, "no backchannel on this transport");
                } else {
                    replyDir = Nfs4.CDFS4_FORE;
                }
            }
            default -> throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL);
        }
        s.client.lastRenew = ctx.state.now();
        out.writer().writeFixedOpaque(sessionId).writeInt(replyDir).writeBool(false);
    }

    static void destroySession(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        Session s = ctx.state.session(in.readFixedOpaque(Nfs4.SESSIONID_SIZE));
        if (s == ctx.session) {
            ctx.slot = null; // its cache goes with it
        }
        ctx.state.destroySession(s);
    }

    static void destroyClientid(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        ClientRecord c = ctx.state.client(in.readHyper());
        if (!c.sessions.isEmpty()) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_CLIENTID_BUSY);
        }
        ctx.state.destroyClient(c);
    }

    static void reclaimComplete(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        boolean oneFs = in.readBool();
        ClientRecord c = ctx.client();
        if (!oneFs) {
            if (c.reclaimComplete) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_COMPLETE_ALREADY);
            }
            c.reclaimComplete = true;
        }
    }
}
