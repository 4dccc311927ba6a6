package dev.rpcrdma.oncrpc.metrics;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one procedure (or of every call to a procedure nobody registered) in an {@link RpcMetrics}:
 * calls completed, how many failed, and their latency in an HdrHistogram (nanoseconds, 2 significant digits, up to
 * one minute; longer calls are recorded as one minute). Registered up front so recording costs no lookup beyond
 * {@link RpcMetrics#procedure}, no boxing and no allocation. Thread-safe: calls complete on any event loop.
 */
public final class ProcedureMetrics {

    /** Longest latency tracked; longer values are clamped. */
    static final long MAX_TRACKED = TimeUnit.MINUTES.toNanos(1);

    private final int program;
    private final int version;
    private final int procedure;
    private final String name;
    private final LongAdder calls = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final ConcurrentHistogram latency = new ConcurrentHistogram(MAX_TRACKED, 2);
    /** The server's or client's counters of this procedure when these are one connection's; else null. */
    private final ProcedureMetrics parent;

    ProcedureMetrics(int program, int version, int procedure, String name, ProcedureMetrics parent) {
        this.program = program;
        this.version = version;
        this.procedure = procedure;
        this.name = name;
        this.parent = parent;
    }

    /** Records one completed call of {@code nanos}; {@code error} null if it succeeded. */
    public void record(long nanos, RpcErrorKind error) {
        calls.increment();
        if (error != null) {
            errors.increment();
        }
        latency.recordValue(Math.min(Math.max(nanos, 0), MAX_TRACKED));
        if (parent != null) {
            parent.record(nanos, error);
        }
    }

    /** The program number (0 for the unregistered bucket). */
    public int program() {
        return program;
    }

    /** The version. */
    public int version() {
        return version;
    }

    /** The procedure number. */
    public int procedure() {
        return procedure;
    }

    /** The name given at registration ({@code program.PROCEDURE} for typed programs). */
    public String name() {
        return name;
    }

    /** Calls completed (answered, or failed on the client). */
    public long calls() {
        return calls.sum();
    }

    /** Calls that completed with an error. */
    public long errors() {
        return errors.sum();
    }

    /** A copy of the latency histogram (nanoseconds). */
    public Histogram latency() {
        return latency.copy();
    }

    @Override
    public String toString() {
        return name + "(calls=" + calls() + ", errors=" + errors() + ", p50=" + latency.getValueAtPercentile(50)
                + "ns, p99=" + latency.getValueAtPercentile(99) + "ns)";
    }
}
