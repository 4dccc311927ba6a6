package dev.rpcrdma.examples;

import dev.rpcrdma.testing.Krb5Realm;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** docs/security.md's complete program is {@link Krb5iEchoOverRdma}, verbatim, and it runs against a real KDC. */
class SecurityExampleTest {

    @Test
    void theSecurityPageShowsTheExampleVerbatim() throws Exception {
        String page = Files.readString(Path.of("..", "docs", "security.md"), StandardCharsets.UTF_8);
        assertTrue(page.contains("```java\n" + ReadmeExamplesTest.shown("Krb5iEchoOverRdma.java") + "```\n"),
                "Krb5iEchoOverRdma.java is not in docs/security.md verbatim (from its first import to its end, in a"
                        + " java code block): copy it there");
    }

    @Test
    void krb5iEchoOverRdmaRunsAgainstARealKdc() throws Exception {
        try (Krb5Realm realm = Krb5Realm.start()) {
            Path serverKeytab = realm.addPrincipal("nfs/localhost");
            Path clientKeytab = realm.addPrincipal("alice");
            PrintStream stdout = System.out;
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            try {
                Krb5iEchoOverRdma.main(new String[] {Krb5Realm.name("nfs/localhost"), serverKeytab.toString(),
                        Krb5Realm.name("alice"), clientKeytab.toString()});
            } finally {
                System.setOut(stdout);
            }
            String printed = out.toString(StandardCharsets.UTF_8);
            assertTrue(printed.contains("ECHO for alice@" + Krb5Realm.REALM + " (INTEGRITY)"), printed);
            assertTrue(printed.contains("krb5i client: 100000 bytes echoed"), printed);
        }
    }
}
