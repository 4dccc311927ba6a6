package dev.rpcrdma.channel.transport;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The kernel's per-device counts of RDMA objects, from iproute2's {@code rdma resource show}
 * ({@code "0: rxe0: pd 1 cq 2 qp 1 cm_id 0 mr 0 ctx 0 srq 0"}), keyed {@code "rxe0 pd"}. Only meaningful on a host
 * with an RDMA device (the VM stage); fails when {@code rdma} is missing there ({@code tools/setup} installs it).
 */
public final class RdmaResources {
    /**
     * Kinds left out: {@code ctx} counts open device contexts, which librdmacm opens when an id first binds to the
     * device and keeps for the life of the process (not a connection's resource).
     */
    private static final String IGNORED = "ctx";

    private RdmaResources() {
    }

    /** Counts per "device kind", e.g. {@code "rxe0 qp" -> 1}. */
    public static Map<String, Integer> show() {
        String out;
        try {
            Process p = new ProcessBuilder("rdma", "resource", "show").redirectErrorStream(true).start();
            try (InputStream in = p.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return fail("rdma resource show failed: " + out);
            }
        } catch (IOException e) {
            return fail("cannot run `rdma resource show` (iproute2's rdma, installed by tools/setup): " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail("interrupted");
        }
        return parse(out);
    }

    /**
     * Waits up to {@code seconds} (teardown may finish on another thread) until {@code counts} equal
     * {@code before} (kinds at zero count as absent), then asserts it.
     */
    public static void assertBackTo(Map<String, Integer> before, Supplier<Map<String, Integer>> counts, long seconds)
            throws InterruptedException {
        Map<String, Integer> baseline = nonZero(before);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        Map<String, Integer> now = nonZero(counts.get());
        while (!now.equals(baseline) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            now = nonZero(counts.get());
        }
        assertEquals(baseline, now, "device objects back at the baseline");
    }

    private static Map<String, Integer> nonZero(Map<String, Integer> counts) {
        Map<String, Integer> m = new TreeMap<>(counts);
        m.values().removeIf(v -> v == 0);
        return m;
    }

    static Map<String, Integer> parse(String out) {
        Map<String, Integer> counts = new TreeMap<>();
        for (String line : out.split("\n")) {
            String[] t = line.trim().split("\\s+");
            if (t.length < 4 || !t[0].endsWith(":") || !t[1].endsWith(":")) {
                continue;
            }
            String device = t[1].substring(0, t[1].length() - 1);
            for (int i = 2; i + 1 < t.length; i += 2) {
                if (!t[i].equals(IGNORED)) {
                    counts.put(device + ' ' + t[i], Integer.parseInt(t[i + 1]));
                }
            }
        }
        if (counts.isEmpty()) {
            fail("no device in `rdma resource show` output: " + out);
        }
        return counts;
    }
}
