package dev.rpcrdma.handlers.interop.nfs41;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;

import java.util.Arrays;

/**
 * Decodes one COMPOUND4res (RFC 5661 §16.2) in step with the operations the caller sent: {@link #expect} checks the
 * next result's operation number and status and leaves the reader at its result body, which the per-operation
 * methods decode with bounded reads. A failed operation ends the results (§15.2): its status is thrown as
 * {@link Nfs4StatusException}. Valid only inside the reply decoder that created it (the reader is released after).
 */
public final class CompoundResults {
    private final XdrReader r;
    private final int status;
    private int remaining;

    CompoundResults(XdrReader r) throws XdrException {
        this.r = r;
        this.status = r.readInt();
        r.skipOpaque(Nfs4.OPAQUE_LIMIT); // tag
        this.remaining = r.readArrayLength(Nfs4.MAX_OPS, 8);
    }

    /** Reads the next result's header: it must be {@code op}; a status other than NFS4_OK is thrown. */
    XdrReader expect(int op) throws XdrException {
        if (remaining == 0) {
            throw new Nfs4StatusException(op, status == Nfs4.NFS4_OK ? Nfs4.NFS4ERR_OP_ILLEGAL : status);
        }
        remaining--;
        int resop = r.readInt();
        if (resop != op) {
            throw new XdrException("result for operation " + resop + " where " + op + " was expected");
        }
        int opStatus = r.readInt();
        if (opStatus != Nfs4.NFS4_OK) {
            throw new Nfs4StatusException(op, opStatus);
        }
        return r;
    }

    /** §18.35.4 EXCHANGE_ID4resok. */
    ExchangeIdResult exchangeId() throws XdrException {
        expect(Nfs4.OP_EXCHANGE_ID);
        long clientId = r.readHyper();
        int sequenceId = r.readInt();
        int flags = r.readInt();
        int how = r.readInt();
        if (how != Nfs4.SP4_NONE) {
            throw new XdrException("state protection " + how + " where SP4_NONE was asked");
        }
        r.readHyper(); // so_minor_id
        r.skipOpaque(Nfs4.OPAQUE_LIMIT); // so_major_id
        r.skipOpaque(Nfs4.OPAQUE_LIMIT); // server scope
        int impl = r.readArrayLength(1, 20);
        String implName = "";
        for (int i = 0; i < impl; i++) {
            String domain = r.readString(Nfs4.OPAQUE_LIMIT);
            implName = domain + " " + r.readString(Nfs4.OPAQUE_LIMIT);
            r.readHyper(); // nii_date seconds
            r.readInt(); // nseconds
        }
        return new ExchangeIdResult(clientId, sequenceId, flags, implName);
    }

    /** §18.36.4 CREATE_SESSION4resok. */
    CreateSessionResult createSession() throws XdrException {
        expect(Nfs4.OP_CREATE_SESSION);
        byte[] sessionId = r.readFixedOpaque(Nfs4.SESSIONID_SIZE);
        int sequence = r.readInt();
        int flags = r.readInt();
        return new CreateSessionResult(sessionId, sequence, flags, ChannelAttrs.decode(r), ChannelAttrs.decode(r));
    }

    /** §18.46.4 SEQUENCE4resok: returns sr_status_flags. */
    int sequence(byte[] sessionId) throws XdrException {
        expect(Nfs4.OP_SEQUENCE);
        if (!Arrays.equals(sessionId, r.readFixedOpaque(Nfs4.SESSIONID_SIZE))) {
            throw new XdrException("SEQUENCE result for another session");
        }
        r.readInt(); // sequenceid
        r.readInt(); // slotid
        r.readInt(); // highest slotid
        r.readInt(); // target highest slotid
        return r.readInt();
    }

    /** §18.8.4 GETFH4resok. */
    byte[] getFh() throws XdrException {
        expect(Nfs4.OP_GETFH);
        return r.readOpaque(Nfs4.FHSIZE);
    }

    /** §18.16.4 OPEN4resok, with the delegation (§18.16.3 open_delegation4). */
    OpenResult open() throws XdrException {
        expect(Nfs4.OP_OPEN);
        Stateid stateid = Stateid.decode(r);
        r.readBool(); // cinfo.atomic
        r.readHyper(); // cinfo.before
        r.readHyper(); // cinfo.after
        int rflags = r.readInt();
        int words = r.readArrayLength(Nfs4.MAX_BITMAP_WORDS, 4); // attrset
        for (int i = 0; i < words; i++) {
            r.readInt();
        }
        int type = r.readInt();
        switch (type) {
            case Nfs4.OPEN_DELEGATE_NONE:
                return new OpenResult(stateid, rflags, type, null, -1);
            case Nfs4.OPEN_DELEGATE_READ:
            case Nfs4.OPEN_DELEGATE_WRITE: {
                Stateid deleg = Stateid.decode(r);
                r.readBool(); // recall
                if (type == Nfs4.OPEN_DELEGATE_WRITE) {
                    int limitBy = r.readInt(); // nfs_space_limit4
                    if (limitBy == 1) {
                        r.readHyper();
                    } else {
                        r.readInt();
                        r.readInt();
                    }
                }
                r.readInt(); // ace type
                r.readInt(); // ace flag
                r.readInt(); // ace mask
                r.skipOpaque(Nfs4.OPAQUE_LIMIT); // who
                return new OpenResult(stateid, rflags, type, deleg, -1);
            }
            case Nfs4.OPEN_DELEGATE_NONE_EXT: {
                int why = r.readInt();
                if (why == Nfs4.WND4_CONTENTION || why == Nfs4.WND4_RESOURCE) {
                    r.readBool();
                }
                return new OpenResult(stateid, rflags, type, null, why);
            }
            default:
                throw new XdrException("open_delegation_type4 " + type);
        }
    }

    /** §18.2.4 CLOSE4res. */
    void close() throws XdrException {
        expect(Nfs4.OP_CLOSE);
        Stateid.decode(r);
    }

    /** Operations whose result is the status alone. */
    void statusOnly(int op) throws XdrException {
        expect(op);
    }

    /** The result of EXCHANGE_ID. */
    public record ExchangeIdResult(long clientId, int sequenceId, int flags, String serverImpl) {
    }

    /** The result of CREATE_SESSION. */
    public record CreateSessionResult(byte[] sessionId, int sequence, int flags, ChannelAttrs fore, ChannelAttrs back) {
    }

    /** The result of OPEN: the open stateid and the delegation, if one was granted (else why not, or -1). */
    public record OpenResult(Stateid stateid, int rflags, int delegationType, Stateid delegation, int whyNoDelegation) {
    }
}
