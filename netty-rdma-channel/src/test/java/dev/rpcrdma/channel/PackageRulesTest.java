package dev.rpcrdma.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The layer rules of this module's main code, read from its import lines: the API ({@code dev.rpcrdma.channel})
 * over the fabric SPI ({@code fabric}), the native fabric ({@code fabric.ibverbs}) over the SPI and the bindings
 * ({@code verbs}), the software fabric ({@code fabric.software}) over the SPI only. The API reaches the native fabric
 * through the SPI ({@code ServiceLoader}) and names the software fabric only to select it. Every layer may call libc
 * ({@code unix}), which imports none.
 */
class PackageRulesTest {
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?(dev\\.rpcrdma\\.channel[\\w.]*)",
            Pattern.MULTILINE);

    /** Layer to the layers it may import (besides itself). */
    private static final Map<String, Set<String>> ALLOWED = Map.of(
            "api", Set.of("spi", "software", "unix"),
            "spi", Set.of(),
            "ibverbs", Set.of("spi", "verbs", "unix"),
            "software", Set.of("spi", "unix"),
            "verbs", Set.of("spi", "unix"),
            "unix", Set.of());

    private static String layer(String name) {
        if (name.startsWith("dev.rpcrdma.channel.unix")) {
            return "unix";
        }
        if (name.startsWith("dev.rpcrdma.channel.verbs")) {
            return "verbs";
        }
        if (name.startsWith("dev.rpcrdma.channel.fabric.ibverbs")) {
            return "ibverbs";
        }
        if (name.startsWith("dev.rpcrdma.channel.fabric.software")) {
            return "software";
        }
        return name.startsWith("dev.rpcrdma.channel.fabric") ? "spi" : "api";
    }

    @Test
    void mainCodeImportsOnlyDownwards() throws IOException {
        Path root = Path.of("src/main/java/dev/rpcrdma/channel");
        assumeTrue(Files.isDirectory(root), "SKIPPED: the sources are not here (" + root.toAbsolutePath() + ")");
        List<String> breaks = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(f -> f.toString().endsWith(".java")).forEach(f -> {
                String from = layer(root.getParent().getParent().getParent().relativize(f.getParent()).toString()
                        .replace('/', '.'));
                Matcher m = IMPORT.matcher(read(f));
                while (m.find()) {
                    String to = layer(m.group(1));
                    if (!to.equals(from) && !ALLOWED.get(from).contains(to)) {
                        breaks.add(f + ": " + from + " imports " + m.group(1));
                    }
                }
            });
        }
        assertEquals(List.of(), breaks);
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
