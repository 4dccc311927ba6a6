package dev.rpcrdma.handlers.interop.nfs41;

import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;

/**
 * Encodes one COMPOUND4args (RFC 5661 §16.2) with exactly the operations the test client uses, each after its
 * XDR in RFC 5661 §18. The operation count is given up front (it precedes the operations on the wire). Writes into
 * a payload the caller passes on to the RPC client (which releases it); used by one thread at a time.
 */
final class CompoundArgs {
    private final XdrPayload payload;
    private final XdrWriter w;

    CompoundArgs(XdrPayload payload, String tag, int operations) {
        this.payload = payload;
        this.w = payload.writer();
        w.writeString(tag).writeInt(Nfs4.MINOR_VERSION).writeInt(operations);
    }

    /** The encoded arguments. */
    XdrPayload payload() {
        return payload;
    }

    /** §18.35 EXCHANGE_ID: SP4_NONE, no implementation id. */
    CompoundArgs exchangeId(byte[] verifier, byte[] ownerId, int flags) {
        w.writeInt(Nfs4.OP_EXCHANGE_ID).writeFixedOpaque(verifier).writeOpaque(ownerId).writeInt(flags)
                .writeInt(Nfs4.SP4_NONE).writeInt(0);
        return this;
    }

    /**
     * §18.36 CREATE_SESSION; callback security AUTH_NONE (§18.36.3: the server calls back with it).
     */
    CompoundArgs createSession(long clientId, int sequence, int flags, ChannelAttrs fore, ChannelAttrs back,
                               int cbProgram) {
        w.writeInt(Nfs4.OP_CREATE_SESSION).writeHyper(clientId).writeInt(sequence).writeInt(flags);
        fore.encode(w);
        back.encode(w);
        w.writeInt(cbProgram).writeInt(1).writeInt(Nfs4.AUTH_NONE);
        return this;
    }

    /** §18.46 SEQUENCE. */
    CompoundArgs sequence(byte[] sessionId, int sequenceId, int slotId, int highestSlotId) {
        w.writeInt(Nfs4.OP_SEQUENCE).writeFixedOpaque(sessionId).writeInt(sequenceId).writeInt(slotId)
                .writeInt(highestSlotId).writeBool(false);
        return this;
    }

    /** §18.51 RECLAIM_COMPLETE for all file systems (nfsd refuses OPEN CLAIM_NULL with GRACE before it). */
    CompoundArgs reclaimComplete() {
        w.writeInt(Nfs4.OP_RECLAIM_COMPLETE).writeBool(false);
        return this;
    }

    /** §18.21 PUTROOTFH. */
    CompoundArgs putRootFh() {
        w.writeInt(Nfs4.OP_PUTROOTFH);
        return this;
    }

    /** §18.19 PUTFH. */
    CompoundArgs putFh(byte[] fh) {
        w.writeInt(Nfs4.OP_PUTFH).writeOpaque(fh);
        return this;
    }

    /** §18.8 GETFH. */
    CompoundArgs getFh() {
        w.writeInt(Nfs4.OP_GETFH);
        return this;
    }

    /** §18.16 OPEN without create, CLAIM_NULL of {@code name} in the current directory (seqid 0 in 4.1). */
    CompoundArgs openNoCreate(int shareAccess, int shareDeny, long clientId, byte[] owner, String name) {
        w.writeInt(Nfs4.OP_OPEN).writeInt(0).writeInt(shareAccess).writeInt(shareDeny).writeHyper(clientId)
                .writeOpaque(owner).writeInt(Nfs4.OPEN4_NOCREATE).writeInt(Nfs4.CLAIM_NULL).writeString(name);
        return this;
    }

    /** §18.2 CLOSE (seqid 0 in 4.1). */
    CompoundArgs close(Stateid stateid) {
        w.writeInt(Nfs4.OP_CLOSE).writeInt(0);
        stateid.encode(w);
        return this;
    }

    /** §18.6 DELEGRETURN. */
    CompoundArgs delegReturn(Stateid stateid) {
        w.writeInt(Nfs4.OP_DELEGRETURN);
        stateid.encode(w);
        return this;
    }

    /** §18.37 DESTROY_SESSION. */
    CompoundArgs destroySession(byte[] sessionId) {
        w.writeInt(Nfs4.OP_DESTROY_SESSION).writeFixedOpaque(sessionId);
        return this;
    }

    /** §18.50 DESTROY_CLIENTID. */
    CompoundArgs destroyClientId(long clientId) {
        w.writeInt(Nfs4.OP_DESTROY_CLIENTID).writeHyper(clientId);
        return this;
    }
}
