package dev.rpcrdma.benchmarks.vm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs perftest's {@code ib_send_lat} as a server and a client in this machine (the Soft-RoCE VM), as
 * {@code tools/vm/perftest-pair.sh} does, so that {@link VmLoad}'s {@code paired} stack can alternate it with its own
 * measurements in one JVM and one boot. Under QEMU TCG the guest's speed drifts with the host's load over minutes:
 * only figures taken back to back compare.
 */
final class PerftestRun {

    /** perftest's latency figures, half round trips in microseconds. */
    record Latency(double typical, double average, double p99) {
    }

    private PerftestRun() {
    }

    /**
     * {@code ib_send_lat -d device -x 1 -F -s size -n iterations [-e]} between a server and a client connecting to
     * {@code address}; fails with the tools' output if either fails.
     */
    static Latency sendLatency(String device, String address, int size, int iterations, boolean events)
            throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("ib_send_lat", "-d", device, "-x", "1", "-F", "-s",
                Integer.toString(size), "-n", Integer.toString(iterations)));
        if (events) {
            args.add("-e");
        }
        Path serverOut = Files.createTempFile("perftest-server", ".out");
        Path clientOut = Files.createTempFile("perftest-client", ".out");
        try {
            Process server = new ProcessBuilder(args).redirectErrorStream(true)
                    .redirectOutput(serverOut.toFile()).start();
            List<String> clientArgs = new ArrayList<>(args);
            clientArgs.add(address);
            String output = "";
            boolean ok = false;
            try {
                // The server may take a while to listen on a loaded machine: retry a refused connection.
                for (int attempt = 0; attempt < 10 && !ok; attempt++) {
                    Thread.sleep(1000);
                    Process client = new ProcessBuilder(clientArgs).redirectErrorStream(true)
                            .redirectOutput(clientOut.toFile()).start();
                    if (!client.waitFor(300, TimeUnit.SECONDS)) {
                        client.destroyForcibly();
                    }
                    output = Files.readString(clientOut, StandardCharsets.UTF_8);
                    ok = client.exitValue() == 0;
                    if (!ok && !output.contains("Couldn't connect")) {
                        break;
                    }
                }
                if (!server.waitFor(ok ? 60 : 1, TimeUnit.SECONDS)) {
                    server.destroyForcibly().waitFor();
                }
            } finally {
                server.destroyForcibly();
            }
            if (!ok) {
                throw new IOException("ib_send_lat client failed:\n" + output + "\nserver:\n"
                        + Files.readString(serverOut, StandardCharsets.UTF_8));
            }
            return parse(output);
        } finally {
            Files.deleteIfExists(serverOut);
            Files.deleteIfExists(clientOut);
        }
    }

    /** The figures line after the {@code #bytes} header: bytes iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%. */
    static Latency parse(String output) throws IOException {
        String[] lines = output.split("\n");
        for (int i = 0; i + 1 < lines.length; i++) {
            if (lines[i].trim().startsWith("#bytes")) {
                String[] f = lines[i + 1].trim().split("\\s+");
                if (f.length >= 8) {
                    return new Latency(Double.parseDouble(f[4]), Double.parseDouble(f[5]), Double.parseDouble(f[7]));
                }
            }
        }
        throw new IOException("no figures in the output of ib_send_lat:\n" + output);
    }
}
