package dev.rpcrdma.oncrpc.rpcbind;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;
import io.netty.util.internal.ObjectUtil;

/**
 * RFC 1833 §2.1 {@code rpcb}: program, version, netid ("tcp", "tcp6", "udp", "local", "rdma"...), universal
 * address ({@link UniversalAddress}) and owner. Immutable.
 */
public final class RpcbEntry {

    /** Bound on each string we accept from rpcbind (RFC 1833 leaves them unbounded). */
    public static final int MAX_STRING = 1024;

    private final int program;
    private final int version;
    private final String netid;
    private final String address;
    private final String owner;

    /** An entry. */
    public RpcbEntry(int program, int version, String netid, String address, String owner) {
        this.program = program;
        this.version = version;
        this.netid = ObjectUtil.checkNotNull(netid, "netid");
        this.address = ObjectUtil.checkNotNull(address, "address");
        this.owner = ObjectUtil.checkNotNull(owner, "owner");
    }

    /** Program number. */
    public int program() {
        return program;
    }

    /** Version number. */
    public int version() {
        return version;
    }

    /** Network id. */
    public String netid() {
        return netid;
    }

    /** Universal address. */
    public String address() {
        return address;
    }

    /** Owner of the registration (rpcbind sets it from the caller's credentials). */
    public String owner() {
        return owner;
    }

    static RpcbEntry decode(XdrReader in) throws XdrException {
        return new RpcbEntry(in.readInt(), in.readInt(), in.readString(MAX_STRING), in.readString(MAX_STRING),
                in.readString(MAX_STRING));
    }

    void encode(XdrWriter out) {
        out.writeInt(program).writeInt(version).writeString(netid).writeString(address).writeString(owner);
    }

    @Override
    public String toString() {
        return Integer.toUnsignedString(program) + " v" + version + ' ' + netid + ' ' + address + " (" + owner + ')';
    }
}
