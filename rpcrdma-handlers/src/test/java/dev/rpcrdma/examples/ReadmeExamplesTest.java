package dev.rpcrdma.examples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The documentation's code is these files: docs/getting-started.md shows each from its first import to its end
 * verbatim (checked here), and here they run to completion, JVM-exit-ready (event loops shut down, clients closed).
 * Every relative link of the README and of docs/ leads to a file that exists (and to a heading of it, for
 * {@code #anchors} into Markdown).
 */
class ReadmeExamplesTest {

    private static final Path ROOT = Path.of("..");
    private static final Path README = ROOT.resolve("README.md");
    private static final Path EXAMPLES_PAGE = ROOT.resolve(Path.of("docs", "getting-started.md"));
    private static final Path SOURCES = Path.of("src", "test", "java", "dev", "rpcrdma", "examples");

    /** The example as the README shows it: from the first import on. */
    static String shown(String file) throws IOException {
        String source = Files.readString(SOURCES.resolve(file), StandardCharsets.UTF_8);
        return source.substring(source.indexOf("import "));
    }

    @Test
    void theDocsShowTheExamplesVerbatim() throws IOException {
        String page = Files.readString(EXAMPLES_PAGE, StandardCharsets.UTF_8);
        for (String file : new String[] {"TcpEcho.java", "RdmaEcho.java"}) {
            assertTrue(page.contains("```java\n" + shown(file) + "```\n"), file + " is not in "
                    + EXAMPLES_PAGE.toAbsolutePath() + " verbatim (from its first import to its end, in a java code"
                    + " block): copy it there");
        }
        assertTrue(Files.readString(README, StandardCharsets.UTF_8).contains("(docs/getting-started.md)"),
                "the README links the examples' page");
    }

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    @Test
    void everyRelativeLinkOfTheDocsResolves() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(README);
        pages.add(ROOT.resolve("CHANGELOG.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> broken = new ArrayList<>();
        for (Path page : pages) {
            Matcher m = LINK.matcher(Files.readString(page, StandardCharsets.UTF_8));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue;   // https:, mailto:
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(page.getFileName() + ": " + target + " (no such file)");
                } else if (hash >= 0 && resolved.toString().endsWith(".md")
                        && !anchors(resolved).contains(target.substring(hash + 1))) {
                    broken.add(page.getFileName() + ": " + target + " (no such heading)");
                }
            }
        }
        assertEquals(List.of(), broken, "broken links");
    }

    /** GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces to dashes. */
    private static Set<String> anchors(Path markdown) throws IOException {
        Set<String> anchors = new HashSet<>();
        boolean code = false;
        for (String line : Files.readAllLines(markdown, StandardCharsets.UTF_8)) {
            if (line.startsWith("```")) {
                code = !code;
            } else if (!code && line.startsWith("#")) {
                String text = line.replaceFirst("^#+\\s*", "").toLowerCase(Locale.ROOT);
                anchors.add(text.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
            }
        }
        return anchors;
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
