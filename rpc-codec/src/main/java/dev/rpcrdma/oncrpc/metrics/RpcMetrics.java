package dev.rpcrdma.oncrpc.metrics;

import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.program.RpcProcedureSpec;
import dev.rpcrdma.oncrpc.program.RpcProgram;
import io.netty.channel.Channel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.internal.ObjectUtil;

import javax.management.JMException;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * What one server or one client did, in code and as a JMX MBean ({@link #registerMBean()}): calls, errors and an
 * HdrHistogram of latencies per registered procedure ({@link ProcedureMetrics}; one shared bucket for the others),
 * errors by {@link RpcErrorKind}, XDR bytes of arguments and results (not headers), and counters a transport
 * attaches ({@link #attach}). A server's {@code RpcDispatcher} and a client's {@code RpcClientHandler} record into
 * it, for one connection or shared by many. Thread-safe; recording takes one lookup in a copy-on-write table of
 * primitive maps, no boxing, no allocation.
 */
public final class RpcMetrics implements AutoCloseable {

    /** Which side this records; names the JMX type. */
    public enum Role {
        /** A server: calls it answered; latency from dispatch to the reply's write. */
        SERVER("RpcServer"),
        /** A client: calls it made; latency from the call to its future's completion. */
        CLIENT("RpcClient");

        final String jmxType;

        Role(String jmxType) {
            this.jmxType = jmxType;
        }
    }

    private static final RpcErrorKind[] KINDS = RpcErrorKind.values();
    private static final AttributeKey<RpcMetrics> CONNECTION = AttributeKey.valueOf(RpcMetrics.class, "connection");

    private final String name;
    private final Role role;
    private final LongAdder bytesIn = new LongAdder();
    private final LongAdder bytesOut = new LongAdder();
    private final LongAdder[] errors = new LongAdder[KINDS.length];
    private final ProcedureMetrics unregistered;
    private final Object lock = new Object();
    /** (program << 32 | version) to procedures; an immutable snapshot replaced on registration. */
    private volatile LongObjectHashMap<IntObjectHashMap<ProcedureMetrics>> table = new LongObjectHashMap<>();
    private volatile List<ProcedureMetrics> registered = List.of();
    private volatile Map<String, LongSupplier> attached = Map.of();
    private ObjectName objectName;
    /** The server's or client's metrics when these are one connection's; else null. */
    private final RpcMetrics parent;
    private final String connection;
    private volatile boolean perConnection;

    /** Metrics called {@code name} (the JMX name) for a {@code role}. */
    public RpcMetrics(String name, Role role) {
        this(name, role, null, null);
    }

    private RpcMetrics(String name, Role role, RpcMetrics parent, String connection) {
        this.name = ObjectUtil.checkNonEmpty(name, "name");
        this.role = ObjectUtil.checkNotNull(role, "role");
        this.parent = parent;
        this.connection = connection;
        for (int i = 0; i < errors.length; i++) {
            errors[i] = new LongAdder();
        }
        unregistered = new ProcedureMetrics(0, 0, 0, "unregistered", parent != null ? parent.unregistered : null);
    }

    /**
     * Per connection on request: from now on every connection recording into these metrics gets its own
     * {@link #forChannel child} as well (they still add up here), with its own MBean
     * ({@code dev.rpcrdma:type=...,name=...,connection=<channel id>}) while this one is registered; off by default
     * (a child costs a second histogram record per call and its memory per procedure).
     */
    public RpcMetrics perConnection(boolean on) {
        perConnection = on;
        return this;
    }

    /**
     * The metrics {@code channel}'s calls are recorded into: these, or with {@link #perConnection(boolean)} on, the
     * channel's own child (created on first use with this one's procedures, closed when the channel closes).
     */
    public RpcMetrics forChannel(Channel channel) {
        if (!perConnection || parent != null) {
            return this;
        }
        Attribute<RpcMetrics> attr = channel.attr(CONNECTION);
        RpcMetrics child = attr.get();
        if (child == null || child.parent != this) {
            child = new RpcMetrics(name, role, this, channel.id().asShortText());
            for (ProcedureMetrics p : registered) {
                child.register(p.program(), p.version(), p.procedure(), p.name());
            }
            attr.set(child);
            synchronized (lock) {
                if (objectName != null) {
                    try {
                        child.registerMBean();
                    } catch (JMException e) {
                        throw new IllegalStateException("cannot register " + child.objectName(), e);
                    }
                }
            }
            RpcMetrics c = child;
            channel.closeFuture().addListener(f -> c.close());
        }
        return child;
    }

    /** The connection (channel id) of a child from {@link #forChannel}, null for a server's or client's own. */
    public String connection() {
        return connection;
    }

    /** Registers every procedure of {@code program} (and NULL), named {@code program.PROCEDURE}. */
    public RpcMetrics register(RpcProgram program) {
        ObjectUtil.checkNotNull(program, "program");
        if (program.procedure(0) == null) {
            register(program.program(), program.version(), 0, program.name() + ".NULL");
        }
        for (RpcProcedureSpec<?, ?> p : program.procedures()) {
            register(program.program(), program.version(), p.number(), program.name() + '.' + p.name());
        }
        return this;
    }

    /** Registers one procedure under {@code name}; a procedure already registered keeps its counters. */
    public RpcMetrics register(int program, int version, int procedure, String name) {
        ObjectUtil.checkNonEmpty(name, "name");
        synchronized (lock) {
            long key = key(program, version);
            IntObjectHashMap<ProcedureMetrics> old = table.get(key);
            if (old != null && old.containsKey(procedure)) {
                return this;
            }
            LongObjectHashMap<IntObjectHashMap<ProcedureMetrics>> next = new LongObjectHashMap<>();
            next.putAll(table);
            IntObjectHashMap<ProcedureMetrics> procedures = new IntObjectHashMap<>();
            if (old != null) {
                procedures.putAll(old);
            }
            ProcedureMetrics m = new ProcedureMetrics(program, version, procedure, name,
                    parent != null ? parent.procedure(program, version, procedure) : null);
            procedures.put(procedure, m);
            next.put(key, procedures);
            List<ProcedureMetrics> list = new ArrayList<>(registered);
            list.add(m);
            registered = Collections.unmodifiableList(list);
            table = next;
        }
        return this;
    }

    private static long key(int program, int version) {
        return (long) program << 32 | (version & 0xFFFFFFFFL);
    }

    /** The counters of a procedure: the registered ones, else the shared unregistered bucket. Never null. */
    public ProcedureMetrics procedure(int program, int version, int procedure) {
        IntObjectHashMap<ProcedureMetrics> procedures = table.get(key(program, version));
        ProcedureMetrics m = procedures != null ? procedures.get(procedure) : null;
        return m != null ? m : unregistered;
    }

    /** The registered procedures, in registration order. */
    public List<ProcedureMetrics> procedures() {
        return registered;
    }

    /** Calls to procedures nobody registered. */
    public ProcedureMetrics unregistered() {
        return unregistered;
    }

    /**
     * Adds a counter read on demand (JMX attribute and {@link #attached()}), e.g. a transport's; a name given again
     * replaces the earlier counter.
     */
    public RpcMetrics attach(String name, LongSupplier counter) {
        ObjectUtil.checkNonEmpty(name, "name");
        ObjectUtil.checkNotNull(counter, "counter");
        synchronized (lock) {
            Map<String, LongSupplier> next = new LinkedHashMap<>(attached);
            next.put(name, counter);
            attached = Collections.unmodifiableMap(next);
        }
        return this;
    }

    /** The attached counters by name. */
    public Map<String, LongSupplier> attached() {
        return attached;
    }

    /** The name. */
    public String name() {
        return name;
    }

    /** The role. */
    public Role role() {
        return role;
    }

    /** Calls completed, all procedures (registered or not). */
    public long calls() {
        long n = unregistered.calls();
        for (ProcedureMetrics m : registered) {
            n += m.calls();
        }
        return n;
    }

    /** Errors of every kind. */
    public long errors() {
        long n = 0;
        for (LongAdder e : errors) {
            n += e.sum();
        }
        return n;
    }

    /** Errors of one kind. */
    public long errors(RpcErrorKind kind) {
        return errors[kind.ordinal()].sum();
    }

    /** XDR bytes of arguments (server) or results (client) received. */
    public long bytesIn() {
        return bytesIn.sum();
    }

    /** XDR bytes of results (server) or arguments (client) sent. */
    public long bytesOut() {
        return bytesOut.sum();
    }

    /** Counts bytes received. */
    public void recordBytesIn(long bytes) {
        bytesIn.add(bytes);
        if (parent != null) {
            parent.bytesIn.add(bytes);
        }
    }

    /** Counts bytes sent. */
    public void recordBytesOut(long bytes) {
        bytesOut.add(bytes);
        if (parent != null) {
            parent.bytesOut.add(bytes);
        }
    }

    /** Counts an error that no procedure's counters see (e.g. an unknown program). */
    public void recordError(RpcErrorKind kind) {
        errors[kind.ordinal()].increment();
        if (parent != null) {
            parent.errors[kind.ordinal()].increment();
        }
    }

    /** Records a completed call of {@code procedure}: its latency and error (null: success). */
    public void recordCall(ProcedureMetrics procedure, long nanos, RpcErrorKind error) {
        procedure.record(nanos, error);
        if (error != null) {
            errors[error.ordinal()].increment();
            if (parent != null) {
                parent.errors[error.ordinal()].increment();
            }
        }
    }

    /** The error kind of a reply, null for SUCCESS (RFC 5531 §9). */
    public static RpcErrorKind kindOf(RpcReply reply) {
        if (reply.isSuccess()) {
            return null;
        }
        AcceptStat stat = reply.acceptStat();
        if (stat == null) {
            return RpcErrorKind.DENIED;
        }
        if (AcceptStat.PROG_UNAVAIL.equals(stat)) {
            return RpcErrorKind.PROG_UNAVAIL;
        }
        if (AcceptStat.PROG_MISMATCH.equals(stat)) {
            return RpcErrorKind.PROG_MISMATCH;
        }
        if (AcceptStat.PROC_UNAVAIL.equals(stat)) {
            return RpcErrorKind.PROC_UNAVAIL;
        }
        if (AcceptStat.GARBAGE_ARGS.equals(stat)) {
            return RpcErrorKind.GARBAGE_ARGS;
        }
        return RpcErrorKind.SYSTEM_ERR;
    }

    /**
     * The JMX name: {@code dev.rpcrdma:type=RpcServer|RpcClient,name=<name>} (quoted if it needs to be), with
     * {@code ,connection=<channel id>} for a connection's child.
     */
    public ObjectName objectName() {
        String type = "dev.rpcrdma:type=" + role.jmxType + ",name=";
        String suffix = connection != null ? ",connection=" + connection : "";
        try {
            return new ObjectName(type + name + suffix);
        } catch (MalformedObjectNameException e) {
            try {
                return new ObjectName(type + ObjectName.quote(name) + suffix);
            } catch (MalformedObjectNameException impossible) {
                throw new IllegalArgumentException(name, impossible);
            }
        }
    }

    /** Registers this as an MBean in the platform MBeanServer under {@link #objectName()}; returns this. */
    public RpcMetrics registerMBean() throws JMException {
        synchronized (lock) {
            if (objectName == null) {
                ObjectName n = objectName();
                ManagementFactory.getPlatformMBeanServer().registerMBean(new RpcMetricsMBean(this), n);
                objectName = n;
            }
        }
        return this;
    }

    /** Removes the MBean if registered. */
    @Override
    public void close() {
        synchronized (lock) {
            if (objectName != null) {
                try {
                    ManagementFactory.getPlatformMBeanServer().unregisterMBean(objectName);
                } catch (JMException ignored) {
                    // already gone
                }
                objectName = null;
            }
        }
    }

    @Override
    public String toString() {
        return role.jmxType + '(' + name + (connection != null ? '/' + connection : "") + ": calls=" + calls()
                + ", errors=" + errors() + ", in=" + bytesIn()
                + ", out=" + bytesOut() + ')';
    }
}
