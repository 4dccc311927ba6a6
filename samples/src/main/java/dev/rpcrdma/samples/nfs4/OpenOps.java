package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;

import java.util.Arrays;

/**
 * Open and delegation state (RFC 5661 §18.16 OPEN, §18.18 OPEN_DOWNGRADE, §18.2 CLOSE, §18.6 DELEGRETURN, §18.48
 * TEST_STATEID, §18.38 FREE_STATEID). OPEN claims CLAIM_NULL, CLAIM_FH and the delegation claims the Linux
 * client uses when it returns a delegation (CLAIM_DELEGATE_CUR, CLAIM_DELEG_CUR_FH); creates UNCHECKED4, GUARDED4,
 * EXCLUSIVE4 and EXCLUSIVE4_1 (§18.16.3); checks share reservations (§9.7); grants a read delegation on a read
 * open when {@link Nfs4State#mayDelegate} allows and recalls others' delegations on a write open. Stateless;
 * runs with the state lock held.
 */
final class OpenOps {
    private OpenOps() {
    }

    static void register(Operation[] ops) {
        ops[Nfs4.OP_OPEN] = OpenOps::open;
        ops[Nfs4.OP_OPEN_DOWNGRADE] = OpenOps::openDowngrade;
        ops[Nfs4.OP_CLOSE] = OpenOps::close;
        ops[Nfs4.OP_DELEGRETURN] = OpenOps::delegreturn;
        ops[Nfs4.OP_TEST_STATEID] = OpenOps::testStateid;
        ops[Nfs4.OP_FREE_STATEID] = OpenOps::freeStateid;
    }

    /** The decoded arguments of OPEN (RFC 5661 §18.16.1). */
    private static final class OpenArgs {
        int access;
        int want;
        int deny;
        byte[] owner;
        boolean create;
        int createMode;
        SetAttrs attrs;
        byte[] verifier;
        int claim;
        String name;
    }

    private static OpenArgs decode(XdrReader in) throws XdrException, Nfs4Exception {
        OpenArgs a = new OpenArgs();
        in.readInt(); // seqid: unused in NFSv4.1 (RFC 5661 §18.16.3)
        int shareAccess = in.readInt();
        a.access = shareAccess & Nfs4.OPEN4_SHARE_ACCESS_BOTH;
        a.want = shareAccess & Nfs4.OPEN4_SHARE_ACCESS_WANT_DELEG_MASK;
        // RFC 5661 §18.16.3: one of the WANT values (or none), the two WANT modifiers, nothing else.
        boolean badShareAccess = a.want > Nfs4.OPEN4_SHARE_ACCESS_WANT_CANCEL
                || (shareAccess & ~(Nfs4.OPEN4_SHARE_ACCESS_BOTH | Nfs4.OPEN4_SHARE_ACCESS_WANT_DELEG_MASK
                | Nfs4.OPEN4_SHARE_ACCESS_WANT_SIGNAL_PUSH)) != 0;
        a.deny = in.readInt();
        in.readHyper(); // clientid: the session's client is the one that counts
        a.owner = in.readOpaque(Nfs4.OPAQUE_LIMIT);
        int opentype = in.readInt();
        if (opentype == Nfs4.OPEN4_CREATE) {
            a.create = true;
            a.createMode = in.readInt();
            switch (a.createMode) {
                case Nfs4.UNCHECKED4, Nfs4.GUARDED4 -> a.attrs = Attributes.decodeSet(in);
                case Nfs4.EXCLUSIVE4 -> a.verifier = in.readFixedOpaque(Nfs4.VERIFIER_SIZE);
                case Nfs4.EXCLUSIVE4_1 -> {
                    a.verifier = in.readFixedOpaque(Nfs4.VERIFIER_SIZE);
                    a.attrs = Attributes.decodeSet(in);
                }
                default -> throw new Nfs4Exception(Nfs4.NFS4ERR_BADXDR);
            }
        } else if (opentype != Nfs4.OPEN4_NOCREATE) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_BADXDR);
        }
        a.claim = in.readInt();
        switch (a.claim) {
            case Nfs4.CLAIM_NULL, 3 -> a.name = in.readString(Nfs4.OPAQUE_LIMIT); // 3: CLAIM_DELEGATE_PREV
            case Nfs4.CLAIM_PREVIOUS -> in.readInt(); // delegate_type
            case 2 -> { // CLAIM_DELEGATE_CUR
                StateId.Wire.decode(in);
                a.name = in.readString(Nfs4.OPAQUE_LIMIT);
            }
            case Nfs4.CLAIM_FH, 5 -> {
            }
            case 6 -> StateId.Wire.decode(in); // CLAIM_DELEG_CUR_FH
            default -> throw new Nfs4Exception(Nfs4.NFS4ERR_BADXDR);
        }
        if (a.access == 0 || a.deny > Nfs4.OPEN4_SHARE_ACCESS_BOTH || badShareAccess) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL);
        }
        return a;
    }

    static void open(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        OpenArgs a = decode(in);
        ClientRecord c = ctx.client();
        Nfs4State state = ctx.state;
        Nfs4FileSystem fs = ctx.fs;
        long dir = CompoundContext.NONE;
        long file;
        int[] attrset = new int[0];
        switch (a.claim) {
            case Nfs4.CLAIM_NULL, 2 -> {
                dir = ctx.currentDirectory();
                CompoundContext.checkName(a.name);
            }
            case Nfs4.CLAIM_FH, 6 -> {
                if (a.create) {
                    throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL);
                }
            }
            // No grace period (RFC 5661 §8.4.2): state lives in memory only, so after a start there is nothing a
            // client could reclaim and nothing to wait for; reclaims are NO_GRACE, other opens proceed at once.
            case Nfs4.CLAIM_PREVIOUS -> throw new Nfs4Exception(Nfs4.NFS4ERR_NO_GRACE);
            default -> throw new Nfs4Exception(Nfs4.NFS4ERR_NOTSUPP);
        }
        long before = fs.attrs(dir != CompoundContext.NONE ? dir : ctx.current()).change;
        if (dir == CompoundContext.NONE) {
            file = ctx.current();
        } else {
            long existing;
            try {
                existing = fs.lookup(dir, a.name);
            } catch (Nfs4Exception e) {
                if (e.status() != Nfs4.NFS4ERR_NOENT || !a.create) {
                    throw e;
                }
                existing = CompoundContext.NONE;
            }
            if (existing == CompoundContext.NONE) {
                int mode = a.attrs != null && a.attrs.mode >= 0 ? a.attrs.mode : 0644;
                file = fs.create(dir, a.name, Nfs4.NF4REG, mode, ctx.uid, ctx.gid);
                if (a.attrs != null) {
                    SetAttrs rest = a.attrs;
                    rest.mode = -1;
                    if (!rest.isEmpty()) {
                        fs.setAttrs(file, rest);
                    }
                    attrset = rest.mask;
                }
                if (a.verifier != null) {
                    state.createVerifiers.put(file, a.verifier);
                }
            } else {
                file = existing;
                if (a.create) {
                    if (a.createMode == Nfs4.GUARDED4) {
                        throw new Nfs4Exception(Nfs4.NFS4ERR_EXIST);
                    }
                    if (a.verifier != null) {
                        byte[] v = state.createVerifiers.get(file);
                        if (v == null || !Arrays.equals(v, a.verifier)) {
                            throw new Nfs4Exception(Nfs4.NFS4ERR_EXIST);
                        }
                        attrset = a.attrs != null ? a.attrs.mask : attrset; // a retransmitted exclusive create
                    }
                }
            }
        }
        FileAttrs fa = fs.attrs(file);
        if (fa.isDirectory()) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_ISDIR);
        }
        if (fa.type != Nfs4.NF4REG) {
            throw new Nfs4Exception(fa.type == Nfs4.NF4LNK ? 10029 : Nfs4.NFS4ERR_INVAL); // SYMLINK
        }
        byte[] fh = CompoundContext.fileHandle(file);
        StateId mine = state.openOf(c, a.owner, file);
        for (StateId s : state.statesOf(file)) {
            if (s.kind == StateId.OPEN && s != mine && ((s.deny & a.access) != 0 || (s.access & a.deny) != 0)) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_SHARE_DENIED);
            }
        }
        if ((a.access & Nfs4.OPEN4_SHARE_ACCESS_WRITE) != 0) {
            state.breakDelegations(file, c, fh);
        }
        if (a.create && a.createMode == Nfs4.UNCHECKED4 && a.attrs != null && a.attrs.size >= 0
                && dir != CompoundContext.NONE) {
            SetAttrs trunc = new SetAttrs();
            trunc.size = a.attrs.size;
            fs.setAttrs(file, trunc);
            attrset = a.attrs.mask;
        }
        if (mine == null) {
            mine = state.newState(StateId.OPEN, c, file, a.owner);
            mine.access = a.access;
            mine.deny = a.deny;
        } else {
            mine.access |= a.access;
            mine.deny |= a.deny;
            mine.seqid++;
        }
        StateId delegation = null;
        boolean readWanted = a.want == Nfs4.OPEN4_SHARE_ACCESS_WANT_NO_PREFERENCE
                || a.want == Nfs4.OPEN4_SHARE_ACCESS_WANT_READ_DELEG || a.want == Nfs4.OPEN4_SHARE_ACCESS_WANT_ANY_DELEG;
        if (a.access == Nfs4.OPEN4_SHARE_ACCESS_READ && readWanted && state.mayDelegate(c, ctx.session, file)) {
            delegation = state.newState(StateId.DELEGATION, c, file, null);
            state.granted++;
        }
        long after = fs.attrs(dir != CompoundContext.NONE ? dir : file).change;
        ctx.currentFh = file;
        ctx.currentStateid = mine;
        XdrWriter w = out.writer();
        mine.encode(w, state.boot);
        DirectoryOps.writeChangeInfo(w, before, after);
        w.writeInt(Nfs4.OPEN4_RESULT_LOCKTYPE_POSIX);
        Attributes.writeBitmap(w, attrset);
        if (delegation == null && a.want != Nfs4.OPEN4_SHARE_ACCESS_WANT_NO_PREFERENCE) {
            // RFC 5661 §18.16.3: a client that said what it wants hears why it did not get it.
            int why = whyNoDelegation(a, ctx.session);
            w.writeInt(Nfs4.OPEN_DELEGATE_NONE_EXT).writeInt(why);
            if (why == Nfs4.WND4_CONTENTION || why == Nfs4.WND4_RESOURCE) {
                w.writeBool(false); // ond_server_will_push_deleg / ond_server_will_signal_avail: never
            }
        } else if (delegation == null) {
            w.writeInt(Nfs4.OPEN_DELEGATE_NONE);
        } else {
            w.writeInt(Nfs4.OPEN_DELEGATE_READ);
            delegation.encode(w, state.boot);
            // recall false; nfsace4 permissions: ACCESS_ALLOWED, no flags, no mask, empty who
            w.writeBool(false).writeInt(0).writeInt(0).writeInt(0).writeString("");
        }
    }

    /**
     * Why an OPEN that asked for a delegation (or for none) got none (RFC 5661 §18.16.3 why_no_delegation4): the
     * client did not want one, cancelled its want, wants a write delegation (this server grants read delegations
     * only), or a read delegation that a write open, another client's state on the file or a missing callback path
     * (no backchannel or no usable callback credential: RESOURCE) rules out.
     */
    private static int whyNoDelegation(OpenArgs a, Session session) {
        boolean writes = (a.access & Nfs4.OPEN4_SHARE_ACCESS_WRITE) != 0;
        return switch (a.want) {
            case Nfs4.OPEN4_SHARE_ACCESS_WANT_NO_DELEG -> Nfs4.WND4_NOT_WANTED;
            case Nfs4.OPEN4_SHARE_ACCESS_WANT_CANCEL -> Nfs4.WND4_CANCELLED;
            case Nfs4.OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG -> Nfs4.WND4_WRITE_DELEG_NOT_SUPP_FTYPE;
            case Nfs4.OPEN4_SHARE_ACCESS_WANT_ANY_DELEG -> writes ? Nfs4.WND4_WRITE_DELEG_NOT_SUPP_FTYPE
                    : session == null || !session.canCallBack() ? Nfs4.WND4_RESOURCE : Nfs4.WND4_CONTENTION;
            default -> writes || session != null && session.canCallBack() ? Nfs4.WND4_CONTENTION
                    : Nfs4.WND4_RESOURCE;
        };
    }

    private static StateId openState(CompoundContext ctx, StateId.Wire w) throws Nfs4Exception {
        StateId s = ctx.state.find(resolve(ctx, w), ctx.client());
        if (s.kind != StateId.OPEN) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_BAD_STATEID);
        }
        return s;
    }

    /** Replaces the "current stateid" special value by the compound's current stateid (RFC 5661 §16.2.3.1.2). */
    static StateId.Wire resolve(CompoundContext ctx, StateId.Wire w) throws Nfs4Exception {
        if (!w.isCurrent()) {
            return w;
        }
        if (ctx.currentStateid == null) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_BAD_STATEID);
        }
        return new StateId.Wire(0, ctx.state.boot, ctx.currentStateid.id);
    }

    static void openDowngrade(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        StateId.Wire w = StateId.Wire.decode(in);
        in.readInt();
        int access = in.readInt() & Nfs4.OPEN4_SHARE_ACCESS_BOTH;
        int deny = in.readInt();
        StateId s = openState(ctx, w);
        if (access == 0 || (access & ~s.access) != 0 || (deny & ~s.deny) != 0) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL);
        }
        s.access = access;
        s.deny = deny;
        s.seqid++;
        ctx.currentStateid = s;
        s.encode(out.writer(), ctx.state.boot);
    }

    static void close(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        in.readInt();
        StateId s = openState(ctx, StateId.Wire.decode(in));
        ctx.state.removeState(s);
        s.seqid++;
        ctx.currentStateid = s; // gone: a later use of the current stateid is BAD_STATEID (§16.2.3.1.2)
        s.encode(out.writer(), ctx.state.boot);
    }

    static void delegreturn(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        StateId.Wire w = StateId.Wire.decode(in);
        StateId s = ctx.state.find(w, ctx.client());
        if (!s.isDelegation()) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_BAD_STATEID);
        }
        ctx.state.removeState(s);
        ctx.state.returned++;
    }

    static void testStateid(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        int n = in.readArrayLength(1024, 16);
        StateId.Wire[] ids = new StateId.Wire[n];
        for (int i = 0; i < n; i++) {
            ids[i] = StateId.Wire.decode(in);
        }
        ClientRecord c = ctx.client();
        XdrWriter w = out.writer();
        w.writeInt(n);
        for (StateId.Wire id : ids) {
            w.writeInt(ctx.state.test(id, c));
        }
    }

    static void freeStateid(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        ctx.state.free(StateId.Wire.decode(in), ctx.client());
    }
}
