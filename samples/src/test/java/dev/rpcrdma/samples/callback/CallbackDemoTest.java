package dev.rpcrdma.samples.callback;

import dev.rpcrdma.testing.LeakDetectionExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The callback demo as a user runs it, over TCP and over RPC-over-RDMA on the software fabric. */
@ExtendWith(LeakDetectionExtension.class)
class CallbackDemoTest {

    static String run(String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = CallbackDemo.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, text + err.toString(StandardCharsets.UTF_8));
        return text;
    }

    /** The demo's lines say calls went both ways, and the counters agree with each other. */
    static void assertBothDirections(String out, int maxBackward) {
        assertTrue(out.contains("session created with the backchannel enabled on both sides: the largest backward "
                + "message is " + maxBackward + " B (client) / " + maxBackward + " B (server)"), out);
        assertTrue(count(out, "forward  ECHO") > 0, out);
        assertTrue(count(out, "backward CB_NULL") > 0, out);
        assertTrue(count(out, "backward CB_SEQUENCE\\+CB_RECALL") > 0, out);
        Matcher m = Pattern.compile("server sent (\\d+) backward calls and got (\\d+) replies; the client served "
                + "(\\d+) \\((\\d+) recalls\\), dropped 0").matcher(out);
        assertTrue(m.find(), out);
        assertEquals(m.group(1), m.group(2), out);
        assertEquals(m.group(1), m.group(3), out);
        assertTrue(out.contains("OK: calls went both ways on one connection"), out);
        // The three rows of the table line up: the route and the figures start in the same column on each.
        List<String> rows = out.lines().filter(l -> l.startsWith("forward ") || l.startsWith("backward "))
                .collect(Collectors.toList());
        assertEquals(3, rows.size(), out);
        for (String row : rows) {
            assertEquals(rows.get(0).indexOf(" -> "), row.indexOf(" -> "), out);
            assertEquals(rows.get(0).indexOf("  ", rows.get(0).indexOf(" -> ")),
                    row.indexOf("  ", row.indexOf(" -> ")), out);
        }
    }

    /** The number of calls on the line that starts with {@code label}. */
    static int count(String out, String label) {
        Matcher m = Pattern.compile(label + ".*?(\\d+) calls").matcher(out);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    @Test
    void overTcp() throws Exception {
        assertBothDirections(run("--transport", "tcp", "--seconds", "0.5"), 1024 * 1024 + 4096);
    }

    @Test
    void overRpcRdmaOnTheSoftwareFabric() throws Exception {
        String out = run("--transport", "rdma", "--fabric", "software", "--seconds", "0.5");
        assertTrue(out.contains("software fabric"), out);
        assertBothDirections(out, 4096 - 28);
    }

    @Test
    void helpAndUsageErrors() throws Exception {
        assertTrue(run("--help").contains("Usage: run-callback-demo"));
        assertTrue(run("-V").startsWith("run-callback-demo "));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, CallbackDemo.run(new String[] {"--transport", "udp"}, new PrintStream(
                new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--transport must be rdma or tcp"));
        err.reset();
        assertEquals(2, CallbackDemo.run(new String[] {"--second", "1"}, new PrintStream(
                new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("run-callback-demo: unknown option --second: did"
                + " you mean --seconds? (see run-callback-demo --help)"), err.toString(StandardCharsets.UTF_8));
    }
}
