package dev.rpcrdma.samples;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code samples/run-recipe}: it lists exactly the recipes the modules' test sources hold (the ones the docs show),
 * and refuses an unknown name in one line with exit status 2, before building anything.
 */
class RunRecipeScriptTest {

    record Run(int status, String out, String err) {
    }

    private static Run script(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("bash", "run-recipe"));
        command.addAll(List.of(args));
        Path err = Files.createTempFile("run-recipe", ".err");
        try {
            Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new Run(p.waitFor(), out, Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.delete(err);
        }
    }

    @Test
    void listsEveryRecipeAndEachExists() throws Exception {
        Run r = script("--list");
        assertEquals(0, r.status(), r.err());
        List<String> names = r.out().lines().map(l -> l.split("\\s+")[0]).toList();
        assertEquals(List.of("TcpEcho", "RdmaEcho", "NettyPipelineOverRdma", "CustomBindingOverRdma",
                "Oncrpc4jOverRdma"), names);
        for (String name : names) {
            String module = name.startsWith("Oncrpc4j") ? "oncrpc4j-bridge" : "rpcrdma-handlers";
            Path source = Path.of("..", module, "src", "test", "java", "dev", "rpcrdma", "examples", name + ".java");
            assertTrue(Files.exists(source), source + " (listed by run-recipe)");
            assertTrue(source(source).contains("public static void main(String[] args)"), source + " has no main");
        }
    }

    @Test
    void anUnknownRecipeIsOneLineWithExitStatus2() throws Exception {
        Run r = script("NoSuchRecipe");
        assertEquals(2, r.status(), r.out() + r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().startsWith("run-recipe: no recipe named 'NoSuchRecipe': one of TcpEcho, "), r.err());
        assertFalse(r.err().contains("compiling"), "nothing is built for a bad name: " + r.err());
        Run none = script();
        assertEquals(2, none.status(), none.err());
        assertEquals("run-recipe: name a recipe (samples/run-recipe --list shows them)\n", none.err());
    }

    private static String source(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }
}
