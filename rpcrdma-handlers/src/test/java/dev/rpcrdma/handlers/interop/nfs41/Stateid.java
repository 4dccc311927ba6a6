package dev.rpcrdma.handlers.interop.nfs41;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * An NFSv4.1 {@code stateid4} (RFC 5661 §3.3.12): a sequence id and 12 opaque bytes. Immutable.
 */
public record Stateid(int seqid, byte[] other) {
    static final int OTHER_SIZE = 12;

    public Stateid {
        if (other.length != OTHER_SIZE) {
            throw new IllegalArgumentException("stateid other: " + other.length + " bytes");
        }
        other = other.clone();
    }

    static Stateid decode(XdrReader r) throws XdrException {
        return new Stateid(r.readInt(), r.readFixedOpaque(OTHER_SIZE));
    }

    void encode(XdrWriter w) {
        w.writeInt(seqid).writeFixedOpaque(other);
    }

    /** Same state, whatever the sequence id (a recall names the delegation's stateid). */
    public boolean sameState(Stateid o) {
        return Arrays.equals(other, o.other);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Stateid s && s.seqid == seqid && Arrays.equals(s.other, other);
    }

    @Override
    public int hashCode() {
        return 31 * seqid + Arrays.hashCode(other);
    }

    @Override
    public String toString() {
        return "stateid(" + seqid + ", " + HexFormat.of().formatHex(other) + ')';
    }
}
