package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;

/**
 * One piece of state a client holds, named by a {@code stateid4} (RFC 5661 §8.2): an open (share access and deny
 * of one open-owner on one file) or a read delegation. The wire form is {@code seqid} then 12 bytes "other": the
 * server's boot marker and a unique 64-bit id. Guarded by the {@link Nfs4State} lock.
 */
final class StateId {
    static final int OPEN = 1;
    static final int DELEGATION = 2;

    final long id;
    final int kind;
    final ClientRecord client;
    final long fileid;
    /** Open-owner (opens only). */
    final byte[] owner;
    int seqid = 1;
    int access;
    int deny;
    /** Delegations: when the recall was sent (System.nanoTime), or 0. */
    long recalledAt;
    boolean revoked;

    StateId(long id, int kind, ClientRecord client, long fileid, byte[] owner) {
        this.id = id;
        this.kind = kind;
        this.client = client;
        this.fileid = fileid;
        this.owner = owner;
    }

    boolean isDelegation() {
        return kind == DELEGATION;
    }

    void encode(XdrWriter out, int boot) {
        out.writeInt(seqid).writeInt(boot).writeHyper(id);
    }

    @Override
    public String toString() {
        return (kind == OPEN ? "open" : "delegation") + "(" + id + "/" + seqid + ", file " + fileid + ", client "
                + Long.toHexString(client.clientid) + (revoked ? ", revoked" : "") + ')';
    }

    /** A decoded {@code stateid4}: seqid and the two halves of "other". */
    record Wire(int seqid, int boot, long id) {
        static Wire decode(XdrReader in) throws XdrException {
            return new Wire(in.readInt(), in.readInt(), in.readHyper());
        }

        /** The anonymous (all zeros) or READ-bypass (all ones) special stateid (RFC 5661 §8.2.3). */
        boolean isSpecial() {
            return (seqid == 0 && boot == 0 && id == 0) || (seqid == -1 && boot == -1 && id == -1);
        }

        /** The "current stateid" special value (seqid 1, other zero, RFC 5661 §16.2.3.1.2). */
        boolean isCurrent() {
            return seqid == 1 && boot == 0 && id == 0;
        }
    }
}
