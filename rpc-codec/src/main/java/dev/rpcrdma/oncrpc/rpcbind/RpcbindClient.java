package dev.rpcrdma.oncrpc.rpcbind;

import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.util.internal.ObjectUtil;

import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Client of rpcbind / portmapper (RFC 1833, program 100000) over an {@link RpcClient}: the portmapper version 2
 * procedures (SET, UNSET, GETPORT, DUMP) and the rpcbind version 3/4 procedures (SET, UNSET, GETADDR, DUMP).
 * Lists from rpcbind are bounded ({@link #MAX_ENTRIES}) and every string is bounded ({@link RpcbEntry#MAX_STRING}).
 *
 * <p>rpcbind accepts SET/UNSET only from local callers: its AF_UNIX socket ({@code /run/rpcbind.sock}, reachable
 * with the same {@code TcpRpcClientInitializer} over Netty's epoll domain-socket channel) or loopback. Debian 12's
 * rpcbind 1.2.6 accepts them over loopback TCP from any port ({@code RpcbindInteropTest}); builds that enforce
 * the historical privileged-port rule need the AF_UNIX socket or a source port below 1024.
 */
public final class RpcbindClient {

    /** RFC 1833: program number of rpcbind/portmapper. */
    public static final int PROGRAM = 100000;
    /** Portmapper protocol version. */
    public static final int PMAP_VERSION = 2;
    /** rpcbind protocol version 3. */
    public static final int RPCB_VERSION_3 = 3;
    /** rpcbind protocol version 4. */
    public static final int RPCB_VERSION_4 = 4;
    /** Well-known port. */
    public static final int PORT = 111;
    /** Procedure numbers common to both protocols (RFC 1833 §2.2, §3.2). */
    public static final int PROC_SET = 1;
    /** UNSET. */
    public static final int PROC_UNSET = 2;
    /** GETPORT (v2) / GETADDR (v3, v4). */
    public static final int PROC_GETADDR = 3;
    /** DUMP. */
    public static final int PROC_DUMP = 4;
    /** Most entries accepted in a DUMP reply. */
    public static final int MAX_ENTRIES = 65536;

    private final RpcClient client;

    /** A client over an RPC connection to rpcbind. */
    public RpcbindClient(RpcClient client) {
        this.client = ObjectUtil.checkNotNull(client, "client");
    }

    /** PMAPPROC_DUMP: every portmapper mapping. */
    public CompletableFuture<List<PortMapping>> pmapDump() {
        return client.call(PROGRAM, PMAP_VERSION, PROC_DUMP, client.newPayload(), in -> {
            List<PortMapping> list = new ArrayList<>();
            // pmaplist is an XDR optional-data list: bool "more", then an entry.
            while (in.readBool()) {
                checkSize(list);
                list.add(PortMapping.decode(in));
            }
            return list;
        });
    }

    /** PMAPPROC_GETPORT: the port of {@code prog}/{@code vers} over {@code protocol}, 0 if not registered. */
    public CompletableFuture<Integer> pmapGetPort(int prog, int vers, int protocol) {
        XdrPayload args = client.newPayload();
        new PortMapping(prog, vers, protocol, 0).encode(args.writer());
        return client.call(PROGRAM, PMAP_VERSION, PROC_GETADDR, args, XdrReader::readInt);
    }

    /** PMAPPROC_SET: true if registered. */
    public CompletableFuture<Boolean> pmapSet(PortMapping mapping) {
        XdrPayload args = client.newPayload();
        mapping.encode(args.writer());
        return client.call(PROGRAM, PMAP_VERSION, PROC_SET, args, XdrReader::readBool);
    }

    /** PMAPPROC_UNSET (protocol and port ignored by the server): true if removed. */
    public CompletableFuture<Boolean> pmapUnset(int prog, int vers) {
        XdrPayload args = client.newPayload();
        new PortMapping(prog, vers, 0, 0).encode(args.writer());
        return client.call(PROGRAM, PMAP_VERSION, PROC_UNSET, args, XdrReader::readBool);
    }

    /** RPCBPROC_GETADDR (version 3 or 4): the universal address, empty if not registered. */
    public CompletableFuture<String> getAddr(int rpcbVersion, int prog, int vers, String netid) {
        XdrPayload args = client.newPayload();
        new RpcbEntry(prog, vers, netid, "", "").encode(args.writer());
        return client.call(PROGRAM, checkRpcbVersion(rpcbVersion), PROC_GETADDR, args,
                in -> in.readString(RpcbEntry.MAX_STRING));
    }

    /** RPCBPROC_SET (version 4): true if registered. */
    public CompletableFuture<Boolean> rpcbSet(RpcbEntry entry) {
        XdrPayload args = client.newPayload();
        entry.encode(args.writer());
        return client.call(PROGRAM, RPCB_VERSION_4, PROC_SET, args, XdrReader::readBool);
    }

    /** RPCBPROC_UNSET (version 4); an empty netid removes every netid: true if removed. */
    public CompletableFuture<Boolean> rpcbUnset(int prog, int vers, String netid) {
        XdrPayload args = client.newPayload();
        new RpcbEntry(prog, vers, netid, "", "").encode(args.writer());
        return client.call(PROGRAM, RPCB_VERSION_4, PROC_UNSET, args, XdrReader::readBool);
    }

    /**
     * Registers {@code prog}/{@code vers} as served over TCP at {@code address} (RPCBPROC_SET version 4, netid
     * "tcp" or "tcp6" after the address family). rpcbind records the owner from the caller's credentials.
     * Completes with true if registered, false if rpcbind refused (already registered, or not a local caller).
     */
    public CompletableFuture<Boolean> register(int prog, int vers, InetSocketAddress address) {
        String netid = address.getAddress() instanceof Inet6Address ? "tcp6" : "tcp";
        return rpcbSet(new RpcbEntry(prog, vers, netid, UniversalAddress.format(address), ""));
    }

    /** Removes every registration of {@code prog}/{@code vers}, all netids (RPCBPROC_UNSET version 4). */
    public CompletableFuture<Boolean> unregister(int prog, int vers) {
        return rpcbUnset(prog, vers, "");
    }

    /** RPCBPROC_DUMP (version 3 or 4): every registration. */
    public CompletableFuture<List<RpcbEntry>> rpcbDump(int rpcbVersion) {
        return client.call(PROGRAM, checkRpcbVersion(rpcbVersion), PROC_DUMP, client.newPayload(), in -> {
            List<RpcbEntry> list = new ArrayList<>();
            while (in.readBool()) {
                checkSize(list);
                list.add(RpcbEntry.decode(in));
            }
            return list;
        });
    }

    private static int checkRpcbVersion(int v) {
        if (v != RPCB_VERSION_3 && v != RPCB_VERSION_4) {
            throw new IllegalArgumentException("rpcbind version must be 3 or 4: " + v);
        }
        return v;
    }

    private static void checkSize(List<?> list) throws XdrException {
        if (list.size() >= MAX_ENTRIES) {
            throw new XdrException("rpcbind list longer than " + MAX_ENTRIES + " entries");
        }
    }
}
