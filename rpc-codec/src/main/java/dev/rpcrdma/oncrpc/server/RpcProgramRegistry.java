package dev.rpcrdma.oncrpc.server;

import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import io.netty.util.internal.ObjectUtil;

/**
 * The programs, versions and procedures a server offers. Thread-safe; registrations may happen while serving.
 * Shared by every connection of a server, whatever transport carries them.
 *
 * <p>Registrations are rare and calls are many: the table is an immutable snapshot replaced on each
 * (un)registration (copy-on-write), so a lookup on the serving path takes no lock, boxes no number and allocates
 * nothing; every possible answer is precomputed.
 */
public final class RpcProgramRegistry {

    /** RFC 5531 §9 PROG_UNAVAIL. */
    private static final Lookup PROGRAM_UNAVAILABLE = new Lookup(null, false, false, 0, 0);

    /** One program version: its procedures, each with its ready-made successful lookup. */
    private static final class Version {
        final IntObjectMap<Lookup> procedures;
        /** PROC_UNAVAIL for this version. */
        final Lookup procedureUnavailable = new Lookup(null, true, true, 0, 0);

        Version(IntObjectMap<Lookup> procedures) {
            this.procedures = procedures;
        }
    }

    /** One program: its versions and the PROG_MISMATCH answer (lowest and highest version, unsigned). */
    private static final class Program {
        final IntObjectMap<Version> versions;
        final Lookup mismatch;

        Program(IntObjectMap<Version> versions) {
            this.versions = versions;
            int low = -1;
            int high = 0;
            for (int v : versions.keySet()) {
                if (Integer.compareUnsigned(v, low) < 0) {
                    low = v;
                }
                if (Integer.compareUnsigned(v, high) > 0) {
                    high = v;
                }
            }
            mismatch = new Lookup(null, true, false, low, high);
        }
    }

    private final Object lock = new Object();
    /** Immutable snapshot: never modified after publication. */
    private volatile IntObjectMap<Program> programs = new IntObjectHashMap<>();

    /** Registers {@code procedure} as procedure {@code proc} of program {@code prog} version {@code vers}. */
    public RpcProgramRegistry register(int prog, int vers, int proc, RpcProcedure procedure) {
        ObjectUtil.checkNotNull(procedure, "procedure");
        synchronized (lock) {
            IntObjectMap<Program> next = new IntObjectHashMap<>(programs.size() + 1);
            next.putAll(programs);
            Program program = next.get(prog);
            IntObjectMap<Version> versions = new IntObjectHashMap<>();
            if (program != null) {
                versions.putAll(program.versions);
            }
            Version version = versions.get(vers);
            IntObjectMap<Lookup> procedures = new IntObjectHashMap<>();
            if (version != null) {
                procedures.putAll(version.procedures);
            }
            procedures.put(proc, new Lookup(procedure, true, true, 0, 0));
            versions.put(vers, new Version(procedures));
            next.put(prog, new Program(versions));
            programs = next;
        }
        return this;
    }

    /** Registers procedure 0 (NULL) of {@code prog}/{@code vers}: an empty SUCCESS reply. */
    public RpcProgramRegistry registerNull(int prog, int vers) {
        return register(prog, vers, 0, RpcProcedure.NULL);
    }

    /** Removes a whole program version. */
    public RpcProgramRegistry unregister(int prog, int vers) {
        synchronized (lock) {
            Program program = programs.get(prog);
            if (program == null || !program.versions.containsKey(vers)) {
                return this;
            }
            IntObjectMap<Program> next = new IntObjectHashMap<>(programs.size());
            next.putAll(programs);
            IntObjectMap<Version> versions = new IntObjectHashMap<>();
            versions.putAll(program.versions);
            versions.remove(vers);
            if (versions.isEmpty()) {
                next.remove(prog);
            } else {
                next.put(prog, new Program(versions));
            }
            programs = next;
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
        Program program = programs.get(prog);
        if (program == null) {
            return PROGRAM_UNAVAILABLE;
        }
        Version version = program.versions.get(vers);
        if (version == null) {
            return program.mismatch;
        }
        Lookup found = version.procedures.get(proc);
        return found != null ? found : version.procedureUnavailable;
    }
}
