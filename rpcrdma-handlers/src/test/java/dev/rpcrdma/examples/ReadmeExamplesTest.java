package dev.rpcrdma.examples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's "Using it" code is these files: the README shows each from its first import to its end verbatim
 * (checked here), and here they run to completion, JVM-exit-ready (event loops shut down, clients closed).
 */
class ReadmeExamplesTest {

    private static final Path README = Path.of("..", "README.md");
    private static final Path SOURCES = Path.of("src", "test", "java", "dev", "rpcrdma", "examples");

    /** The example as the README shows it: from the first import on. */
    static String shown(String file) throws IOException {
        String source = Files.readString(SOURCES.resolve(file), StandardCharsets.UTF_8);
        return source.substring(source.indexOf("import "));
    }

    @Test
    void theReadmeShowsTheExamplesVerbatim() throws IOException {
        String readme = Files.readString(README, StandardCharsets.UTF_8);
        for (String file : new String[] {"TcpEcho.java", "RdmaEcho.java"}) {
            assertTrue(readme.contains("```java\n" + shown(file) + "```\n"), file + " is not in "
                    + README.toAbsolutePath() + " verbatim (from its first import to its end, in a java code block):"
                    + " copy it there");
        }
    }

    @Test
    void theTcpExampleNeedsOnlyRpcCodecAndNettyNio() throws IOException {
        String tcp = shown("TcpEcho.java");
        assertFalse(tcp.contains("dev.rpcrdma.handlers") || tcp.contains("dev.rpcrdma.channel"), tcp);
        assertFalse(tcp.contains("epoll"), "epoll is not a dependency of rpc-codec: " + tcp);
    }

    @Test
    void tcpEchoRuns() throws Exception {
        assertRuns(() -> TcpEcho.main(new String[0]));
    }

    @Test
    void rdmaEchoRunsOnTheSoftwareFabric() throws Exception {
        assertRuns(() -> RdmaEcho.main(new String[0]));
    }

    private interface Main {
        void run() throws Exception;
    }

    private static void assertRuns(Main main) throws Exception {
        PrintStream stdout = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            main.run();
        } finally {
            System.setOut(stdout);
        }
        assertEquals("async client: 100000 bytes echoed\nblocking client: 100000 bytes echoed\n",
                out.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n"));
    }
}
