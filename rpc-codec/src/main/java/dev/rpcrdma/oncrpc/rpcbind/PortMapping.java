package dev.rpcrdma.oncrpc.rpcbind;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;

/**
 * RFC 1833 §3.1 portmapper {@code mapping}: program, version, protocol (6 TCP, 17 UDP), port. Immutable.
 */
public final class PortMapping {

    /** {@code IPPROTO_TCP}. */
    public static final int IPPROTO_TCP = 6;
    /** {@code IPPROTO_UDP}. */
    public static final int IPPROTO_UDP = 17;

    private final int program;
    private final int version;
    private final int protocol;
    private final int port;

    /** A mapping. */
    public PortMapping(int program, int version, int protocol, int port) {
        this.program = program;
        this.version = version;
        this.protocol = protocol;
        this.port = port;
    }

    /** Program number. */
    public int program() {
        return program;
    }

    /** Version number. */
    public int version() {
        return version;
    }

    /** IP protocol number. */
    public int protocol() {
        return protocol;
    }

    /** Port (0 in UNSET/GETPORT queries). */
    public int port() {
        return port;
    }

    static PortMapping decode(XdrReader in) throws XdrException {
        return new PortMapping(in.readInt(), in.readInt(), in.readInt(), in.readInt());
    }

    void encode(XdrWriter out) {
        out.writeInt(program).writeInt(version).writeInt(protocol).writeInt(port);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PortMapping)) {
            return false;
        }
        PortMapping m = (PortMapping) o;
        return m.program == program && m.version == version && m.protocol == protocol && m.port == port;
    }

    @Override
    public int hashCode() {
        return ((program * 31 + version) * 31 + protocol) * 31 + port;
    }

    @Override
    public String toString() {
        return Integer.toUnsignedString(program) + " v" + version + (protocol == IPPROTO_TCP ? " tcp"
                : protocol == IPPROTO_UDP ? " udp" : " proto " + protocol) + " port " + port;
    }
}
