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
 * BIND_CONN_TO_SESSION, §18.37 DESTROY_SESSION, §18.50 DESTROY_CLIENTID, §18.51 RECLAIM_COMPLETE). SEQUENCE keeps
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
        ops[Nfs4.OP_DESTROY_SESSION] = SessionOps::destroySession;
        ops[Nfs4.OP_DESTROY_CLIENTID] = SessionOps::destroyClientid;
        ops[Nfs4.OP_RECLAIM_COMPLETE] = SessionOps::reclaimComplete;
    }

    /** RFC 5661 §18.35: finds or makes the client record for an owner and verifier (the common cases of §18.35.5). */
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
        AuthSysCredential cred = ctx.call.authSys();
        String principal = cred == null ? "none" : cred.uid() + "@" + cred.machineName();
        Nfs4State state = ctx.state;
        ClientRecord c = state.clientByOwner(owner);
        boolean update = (flags & Nfs4.EXCHGID4_FLAG_UPD_CONFIRMED_REC_A) != 0;
        if (update) {
            if (c == null || !c.confirmed) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_NOENT);
            }
            if (!Arrays.equals(c.verifier, verifier)) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_NOT_SAME);
            }
        } else if (c == null || !Arrays.equals(c.verifier, verifier)) {
            // A new client, or a client that rebooted: a fresh record (the old one's state goes, §18.35.5 case 5).
            c = state.newClient(owner, verifier, principal);
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

    /** RFC 5661 §18.36: confirms the client, makes the session, negotiates channel attributes, binds the backchannel. */
    static void createSession(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        long clientid = in.readHyper();
        int sequence = in.readInt();
        int flags = in.readInt();
        ChannelAttrs fore = ChannelAttrs.decode(in);
        ChannelAttrs back = ChannelAttrs.decode(in);
        int cbProgram = in.readInt();
        int secParms = in.readArrayLength(16, 4);
        for (int i = 0; i < secParms; i++) {
            int flavor = in.readInt();
            if (flavor == 1) {
                in.readInt();
                in.readString(255);
                in.readInt();
                in.readInt();
                int gids = in.readArrayLength(16, 4);
                for (int g = 0; g < gids; g++) {
                    in.readInt();
                }
            } else if (flavor == 6) {
                in.readInt();
                in.skipOpaque(Nfs4.OPAQUE_LIMIT);
                in.skipOpaque(Nfs4.OPAQUE_LIMIT);
            } else if (flavor != 0) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL, "callback flavor " + flavor);
            }
        }
        Nfs4State state = ctx.state;
        ClientRecord c = state.client(clientid);
        if (sequence == c.createSessionSeq - 1 && c.lastSession != null) {
            writeSession(out.writer(), c.lastSession, sequence, c.lastSessionFlags); // a retransmission (§18.36.4)
            return;
        }
        if (sequence != c.createSessionSeq) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_SEQ_MISORDERED);
        }
        if (fore.maxRequestSize() < 512 || fore.maxResponseSize() < 512 || fore.maxRequests() < 1
                || back.maxOperations() < 2 || back.maxRequests() < 1 || back.maxResponseSize() < 256) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_TOOSMALL);
        }
        ChannelAttrs foreReply = new ChannelAttrs(0, Math.min(fore.maxRequestSize(), MAX_MESSAGE),
                Math.min(fore.maxResponseSize(), MAX_MESSAGE), Math.min(fore.maxResponseSizeCached(), MAX_CACHED),
                Math.min(fore.maxOperations(), MAX_OPERATIONS), Math.min(fore.maxRequests(), MAX_SLOTS));
        RpcBackchannel bc = ctx.call.backchannel();
        int backRequest = back.maxRequestSize();
        if (bc != null) {
            backRequest = Math.min(backRequest, bc.maxMessageSize());
        }
        // The Linux client checks the back channel strictly (nfs4_verify_back_channel_attrs): its own
        // ca_maxresponsesize back (or more), ca_maxoperations and ca_maxrequests back exactly. Only slot 0 is used.
        ChannelAttrs backReply = new ChannelAttrs(0, backRequest, back.maxResponseSize(), 0,
                back.maxOperations(), back.maxRequests());
        c.confirmed = true;
        c.lastRenew = state.now();
        c.createSessionSeq++;
        Session s = state.newSession(c, foreReply, backReply, cbProgram);
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

    private static void writeSession(XdrWriter w, Session s, int sequence, int flags) {
        w.writeFixedOpaque(s.id).writeInt(sequence).writeInt(flags);
        s.fore.encode(w);
        s.back.encode(w);
    }

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
