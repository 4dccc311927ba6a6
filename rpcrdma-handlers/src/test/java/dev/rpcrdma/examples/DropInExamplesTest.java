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

/** docs/drop-in.md's recipe for a Netty ONC RPC pipeline is this file, shown verbatim there, and it runs. */
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
