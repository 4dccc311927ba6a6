package dev.rpcrdma.examples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/drop-in.md's recipes for a Netty ONC RPC pipeline and for a binding of your own are these files, shown
 * verbatim there, and they run.
 */
class DropInExamplesTest {

    private static final Path PAGE = Path.of("..", "docs", "drop-in.md");

    @Test
    void thePageShowsTheRecipeVerbatim() throws IOException {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        String shown = ReadmeExamplesTest.shown("NettyPipelineOverRdma.java");
        assertTrue(page.contains("```java\n" + shown + "```\n"), "NettyPipelineOverRdma.java is not in "
                + PAGE.toAbsolutePath() + " verbatim (from its first import to its end): copy it there");
    }

    @Test
    void thePageShowsTheCustomBindingVerbatim() throws IOException {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        String shown = ReadmeExamplesTest.shown("CustomBindingOverRdma.java");
        assertTrue(page.contains("```java\n" + shown + "```\n"), "CustomBindingOverRdma.java is not in "
                + PAGE.toAbsolutePath() + " verbatim (from its first import to its end): copy it there");
    }

    @Test
    void theCustomBindingMovesTheArgumentIntoAReadChunk() throws Exception {
        PrintStream stdout = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            CustomBindingOverRdma.main(new String[0]);
        } finally {
            System.setOut(stdout);
        }
        assertEquals("custom binding: 100000 bytes echoed, argument in 1 Read chunk(s), 0 Long Call(s), 0 binding"
                + " miss(es)\n", out.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n"));
    }

    @Test
    void theNettyPipelineRecipeRunsOnTheSoftwareFabric() throws Exception {
        PrintStream stdout = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            NettyPipelineOverRdma.main(new String[0]);
        } finally {
            System.setOut(stdout);
        }
        assertEquals("byte framing: 100000 bytes echoed\n",
                out.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n"));
    }
}
