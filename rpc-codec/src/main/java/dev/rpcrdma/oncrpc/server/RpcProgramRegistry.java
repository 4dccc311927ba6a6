package dev.rpcrdma.oncrpc.server;

import io.netty.util.internal.ObjectUtil;

import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The programs, versions and procedures a server offers. Thread-safe; registrations may happen while serving.
 * Shared by every connection of a server, whatever transport carries them.
 */
public final class RpcProgramRegistry {

    private final Map<Integer, NavigableMap<Integer, Map<Integer, RpcProcedure>>> programs =
            new ConcurrentHashMap<>();

    /** Registers {@code procedure} as procedure {@code proc} of program {@code prog} version {@code vers}. */
    public RpcProgramRegistry register(int prog, int vers, int proc, RpcProcedure procedure) {
        ObjectUtil.checkNotNull(procedure, "procedure");
        programs.computeIfAbsent(prog, p -> new ConcurrentSkipListMap<>(Integer::compareUnsigned))
                .computeIfAbsent(vers, v -> new ConcurrentHashMap<>())
                .put(proc, procedure);
        return this;
    }

    /** Registers procedure 0 (NULL) of {@code prog}/{@code vers}: an empty SUCCESS reply. */
    public RpcProgramRegistry registerNull(int prog, int vers) {
        return register(prog, vers, 0, RpcProcedure.NULL);
    }

    /** Removes a whole program version. */
    public RpcProgramRegistry unregister(int prog, int vers) {
        NavigableMap<Integer, Map<Integer, RpcProcedure>> versions = programs.get(prog);
        if (versions != null) {
            versions.remove(vers);
        }
        return this;
    }

    /** Result of a lookup, in the order RFC 5531 §9 answers: program, then version, then procedure. */
    static final class Lookup {
        final RpcProcedure procedure;
        final boolean programKnown;
        final boolean versionKnown;
        final int low;
        final int high;

        Lookup(RpcProcedure procedure, boolean programKnown, boolean versionKnown, int low, int high) {
            this.procedure = procedure;
            this.programKnown = programKnown;
            this.versionKnown = versionKnown;
            this.low = low;
            this.high = high;
        }
    }

    Lookup lookup(int prog, int vers, int proc) {
        NavigableMap<Integer, Map<Integer, RpcProcedure>> versions = programs.get(prog);
        if (versions == null || versions.isEmpty()) {
            return new Lookup(null, false, false, 0, 0);
        }
        Map<Integer, RpcProcedure> procedures = versions.get(vers);
        if (procedures == null) {
            Map.Entry<Integer, ?> low = versions.firstEntry();
            Map.Entry<Integer, ?> high = versions.lastEntry();
            if (low == null || high == null) {
                return new Lookup(null, false, false, 0, 0);
            }
            return new Lookup(null, true, false, low.getKey(), high.getKey());
        }
        return new Lookup(procedures.get(proc), true, true, 0, 0);
    }
}
