package dev.rpcrdma.samples.oncrpc4j;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The oncrpc4j rpcbind sample on the software fabric: oncrpc4j's service answers SET, GETPORT and DUMP. */
class Oncrpc4jRpcbindDemoTest {

    @Test
    void oncrpc4jsRpcbindAnswersOverRdma() {
        PrintStream stdout = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        int rc;
        try {
            rc = new CommandLine(new Oncrpc4jRpcbindDemo()).execute("--fabric", "software");
        } finally {
            System.setOut(stdout);
        }
        String s = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, s);
        assertTrue(s.contains(": true"), "SET accepted: " + s);
        assertTrue(s.contains("GETPORT 0x20000099 v1 tcp: 20099"), s);
        assertTrue(s.contains("20099") && s.contains("100000"), "DUMP lists the new mapping and rpcbind itself: " + s);
    }
}
