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

/** docs/drop-in.md's oncrpc4j recipe is this module's Oncrpc4jOverRdma.java, shown verbatim there, and it runs. */
class DropInOncrpc4jExampleTest {

    private static final Path PAGE = Path.of("..", "docs", "drop-in.md");
    private static final Path SOURCE = Path.of("src", "test", "java", "dev", "rpcrdma", "examples",
            "Oncrpc4jOverRdma.java");

    @Test
    void thePageShowsTheRecipeVerbatim() throws IOException {
        String source = Files.readString(SOURCE, StandardCharsets.UTF_8);
        String shown = source.substring(source.indexOf("import "));
        assertTrue(Files.readString(PAGE, StandardCharsets.UTF_8).contains("```java\n" + shown + "```\n"),
                "Oncrpc4jOverRdma.java is not in " + PAGE.toAbsolutePath() + " verbatim: copy it there");
    }

    @Test
    void theRecipeRunsOnTheSoftwareFabric() throws Exception {
        PrintStream stdout = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            Oncrpc4jOverRdma.main(new String[0]);
        } finally {
            System.setOut(stdout);
        }
        assertEquals("oncrpc4j over RDMA: 12 squared is 144\n",
                out.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n"));
    }
}
