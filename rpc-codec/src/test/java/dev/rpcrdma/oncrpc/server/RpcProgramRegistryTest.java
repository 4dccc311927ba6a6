package dev.rpcrdma.oncrpc.server;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The copy-on-write table answers in RFC 5531 §9 order: program, version (low/high unsigned), procedure. */
class RpcProgramRegistryTest {

    private static final int PROG = 0x2000_0042;
    private static final RpcProcedure ONE = (call, args) -> call.replySuccess();
    private static final RpcProcedure TWO = (call, args) -> call.replySuccess();

    @Test
    void answersProgramThenVersionThenProcedure() {
        RpcProgramRegistry registry = new RpcProgramRegistry()
                .register(PROG, 2, 1, ONE)
                .register(PROG, 4, 1, TWO)
                .register(PROG, 0xFFFF_FFFF, 7, ONE);

        assertFalse(registry.lookup(PROG + 1, 2, 1).programKnown, "unknown program: PROG_UNAVAIL");

        RpcProgramRegistry.Lookup mismatch = registry.lookup(PROG, 3, 1);
        assertTrue(mismatch.programKnown);
        assertFalse(mismatch.versionKnown, "unknown version: PROG_MISMATCH");
        assertEquals(2, mismatch.low);
        assertEquals(0xFFFF_FFFF, mismatch.high, "versions compare unsigned");

        RpcProgramRegistry.Lookup unavailable = registry.lookup(PROG, 2, 9);
        assertTrue(unavailable.versionKnown);
        assertNull(unavailable.procedure, "unknown procedure: PROC_UNAVAIL");

        assertSame(ONE, registry.lookup(PROG, 2, 1).procedure);
        assertSame(TWO, registry.lookup(PROG, 4, 1).procedure);
        assertSame(ONE, registry.lookup(PROG, 0xFFFF_FFFF, 7).procedure);
    }

    @Test
    void laterRegistrationsKeepEarlierOnesAndUnregisterRemovesAVersion() {
        RpcProgramRegistry registry = new RpcProgramRegistry().register(PROG, 1, 1, ONE);
        registry.register(PROG, 1, 2, TWO).register(PROG, 3, 0, RpcProcedure.NULL);
        assertSame(ONE, registry.lookup(PROG, 1, 1).procedure);
        assertSame(TWO, registry.lookup(PROG, 1, 2).procedure);

        registry.unregister(PROG, 1);
        RpcProgramRegistry.Lookup mismatch = registry.lookup(PROG, 1, 1);
        assertFalse(mismatch.versionKnown);
        assertEquals(3, mismatch.low);
        assertEquals(3, mismatch.high);

        registry.unregister(PROG, 3);
        assertFalse(registry.lookup(PROG, 3, 0).programKnown, "a program without versions is unavailable");
        registry.unregister(PROG, 3); // absent: no effect, no error
    }
}
