package dev.rpcrdma.oncrpc.program;

import dev.rpcrdma.oncrpc.client.BlockingRpcClient;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcException;
import dev.rpcrdma.oncrpc.rpcbind.RpcbEntry;
import dev.rpcrdma.oncrpc.rpcbind.RpcbindClient;
import dev.rpcrdma.oncrpc.rpcbind.UniversalAddress;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.channel.Channel;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.internal.ObjectUtil;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One version of an ONC RPC program declared once (RFC 5531 §7: program, version, procedures), with typed
 * procedures ({@link RpcProcedureSpec}): what a server implements ({@link #service()}) and what a client calls
 * ({@link #call(RpcClient, RpcProcedureSpec, Object)} and its blocking forms), over TCP or RPC-over-RDMA alike. A
 * procedure's declared maximum reply size becomes its calls' {@code CallOptions.maxReplySize} unless the caller
 * gives one. Immutable and thread-safe.
 */
public final class RpcProgram {

    private final int program;
    private final int version;
    private final String name;
    private final List<RpcProcedureSpec<?, ?>> procedures;
    private final IntObjectHashMap<RpcProcedureSpec<?, ?>> byNumber = new IntObjectHashMap<>();

    private RpcProgram(int program, int version, String name, RpcProcedureSpec<?, ?>[] procedures) {
        this.program = program;
        this.version = version;
        this.name = ObjectUtil.checkNonEmpty(name, "name");
        List<RpcProcedureSpec<?, ?>> list = new ArrayList<>(procedures.length);
        for (RpcProcedureSpec<?, ?> p : procedures) {
            ObjectUtil.checkNotNull(p, "procedure");
            if (byNumber.put(p.number(), p) != null) {
                throw new IllegalArgumentException("procedure " + p.number() + " declared twice in " + name);
            }
            list.add(p);
        }
        this.procedures = Collections.unmodifiableList(list);
    }

    /** Program {@code program} version {@code version}, called {@code name}, with these procedures. */
    public static RpcProgram of(int program, int version, String name, RpcProcedureSpec<?, ?>... procedures) {
        return new RpcProgram(program, version, name, ObjectUtil.checkNotNull(procedures, "procedures"));
    }

    /** The program number. */
    public int program() {
        return program;
    }

    /** The version. */
    public int version() {
        return version;
    }

    /** The name (metrics, JMX, logs). */
    public String name() {
        return name;
    }

    /** The procedures, in declaration order. */
    public List<RpcProcedureSpec<?, ?>> procedures() {
        return procedures;
    }

    /** The procedure numbered {@code number}, or null. */
    public RpcProcedureSpec<?, ?> procedure(int number) {
        return byNumber.get(number);
    }

    /** A builder of this program's server side: one implementation per procedure. */
    public RpcProgramService.Builder service() {
        return new RpcProgramService.Builder(this);
    }

    // ------------------------------------------------------------------ client

    /** Calls {@code procedure} with {@code args}; the future completes on the connection's event loop. */
    public <A, R> CompletableFuture<R> call(RpcClient client, RpcProcedureSpec<A, R> procedure, A args) {
        return call(client, procedure, args, CallOptions.DEFAULT);
    }

    /**
     * Calls {@code procedure} with {@code args} and these options; the procedure's declared maximum reply size
     * applies unless {@code options} give one. Fails as {@link RpcClient#call} does (an argument that does not
     * encode fails the future with its {@link XdrException}).
     */
    public <A, R> CompletableFuture<R> call(RpcClient client, RpcProcedureSpec<A, R> procedure, A args,
                                            CallOptions options) {
        ObjectUtil.checkNotNull(client, "client");
        XdrPayload payload;
        try {
            payload = encode(client.newPayload(), procedure, args);
        } catch (XdrException e) {
            return CompletableFuture.failedFuture(e);
        }
        return client.call(program, version, procedure.number(), payload, procedure.results()::read,
                options(procedure, options));
    }

    /**
     * The blocking form of {@link #call(RpcClient, RpcProcedureSpec, Object)}: waits on this thread (never an
     * event loop) and throws the call's typed failure.
     */
    public <A, R> R callAndWait(RpcClient client, RpcProcedureSpec<A, R> procedure, A args)
            throws RpcException, XdrException, InterruptedException {
        ObjectUtil.checkNotNull(client, "client");
        XdrPayload payload = encode(client.newPayload(), procedure, args);
        return client.callAndWait(program, version, procedure.number(), payload, procedure.results()::read,
                options(procedure, CallOptions.DEFAULT));
    }

    /** Calls {@code procedure} on a {@link BlockingRpcClient} (its I/O runs on this thread meanwhile). */
    public <A, R> R call(BlockingRpcClient client, RpcProcedureSpec<A, R> procedure, A args)
            throws RpcException, XdrException, IOException {
        return call(client, procedure, args, CallOptions.DEFAULT);
    }

    /** Calls {@code procedure} on a {@link BlockingRpcClient} with these options. */
    public <A, R> R call(BlockingRpcClient client, RpcProcedureSpec<A, R> procedure, A args, CallOptions options)
            throws RpcException, XdrException, IOException {
        ObjectUtil.checkNotNull(client, "client");
        XdrPayload payload = encode(client.newPayload(), procedure, args);
        return client.call(program, version, procedure.number(), payload, procedure.results()::read,
                options(procedure, options));
    }

    private <A> XdrPayload encode(XdrPayload payload, RpcProcedureSpec<A, ?> procedure, A args)
            throws XdrException {
        check(procedure);
        boolean ok = false;
        try {
            procedure.arguments().write(payload, args);
            ok = true;
            return payload;
        } catch (XdrException e) {
            // Before anything is sent: the server would answer GARBAGE_ARGS; say which procedure and which limit.
            throw new XdrException("the arguments of " + name + " " + procedure.name() + " (procedure "
                    + procedure.number() + ") do not encode: "
                    + e.getMessage(), e);
        } finally {
            if (!ok) {
                payload.release();
            }
        }
    }

    /** Throws unless {@code procedure} is this program's (declared in {@link #of}). */
    void check(RpcProcedureSpec<?, ?> procedure) {
        ObjectUtil.checkNotNull(procedure, "procedure");
        if (byNumber.get(procedure.number()) != procedure) {
            throw new IllegalArgumentException(procedure + " is not a procedure of " + this);
        }
    }

    private static CallOptions options(RpcProcedureSpec<?, ?> procedure, CallOptions options) {
        ObjectUtil.checkNotNull(options, "options");
        return options.maxReplySize() == 0 && procedure.maxReplySize() > 0
                ? options.withMaxReplySize(procedure.maxReplySize()) : options;
    }

    // ------------------------------------------------------------------ rpcbind

    /**
     * Registers this program version with rpcbind (RFC 1833 RPCBPROC_SET version 4, netid tcp or tcp6 after the
     * address family) at the address {@code server} is bound to, and unregisters it when {@code server} closes; see
     * {@link #advertise(Channel, RpcbindClient, String)}.
     */
    public CompletableFuture<Boolean> advertise(Channel server, RpcbindClient rpcbind) {
        ObjectUtil.checkNotNull(server, "server");
        InetSocketAddress bound = (InetSocketAddress) server.localAddress();
        return advertise(server, rpcbind, bound.getAddress() instanceof Inet6Address ? "tcp6" : "tcp");
    }

    /**
     * Registers this program version with rpcbind (RFC 1833 RPCBPROC_SET version 4) under {@code netid} (e.g.
     * {@code "rdma"} or {@code "rdma6"} for RPC-over-RDMA, RFC 5665 §5.2.3) at the address {@code server} is bound
     * to (a wildcard address is advertised as loopback), and unregisters it (RPCBPROC_UNSET, every netid) when
     * {@code server} closes. Completes with rpcbind's answer (false: refused, e.g. already registered).
     * {@code rpcbind}'s connection must stay open until {@code server} is closed for the removal to reach it.
     */
    public CompletableFuture<Boolean> advertise(Channel server, RpcbindClient rpcbind, String netid) {
        ObjectUtil.checkNotNull(server, "server");
        ObjectUtil.checkNotNull(rpcbind, "rpcbind");
        ObjectUtil.checkNonEmpty(netid, "netid");
        InetSocketAddress bound = (InetSocketAddress) server.localAddress();
        InetSocketAddress address = bound.getAddress().isAnyLocalAddress()
                ? new InetSocketAddress(InetAddress.getLoopbackAddress(), bound.getPort()) : bound;
        RpcbEntry entry = new RpcbEntry(program, version, netid, UniversalAddress.format(address), "");
        return rpcbind.rpcbSet(entry).thenApply(registered -> {
            if (registered) {
                server.closeFuture().addListener(f -> rpcbind.unregister(program, version));
            }
            return registered;
        });
    }

    @Override
    public String toString() {
        return name + '(' + Integer.toUnsignedString(program) + " v" + version + ')';
    }
}
