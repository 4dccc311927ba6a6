package dev.rpcrdma.testing;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway MIT Kerberos realm for tests: a KDC database in a temporary directory ({@code kdb5_util create -s}),
 * principals and keytabs ({@code kadmin.local}), {@code krb5kdc -n} on a free localhost port, and the JDK pointed
 * at it ({@code java.security.krb5.conf}). Skips the test loudly when MIT Kerberos is not installed
 * ({@code tools/setup} installs it). {@link #close()} kills the KDC. One realm per test class keeps tests fast;
 * the VM stage's tests share one per JVM ({@link #shared()}), with the peers they start (rpc.gssd, gssproxy,
 * kinit) pointed at it through {@link #environment()}.
 */
public final class Krb5Realm implements AutoCloseable {

    public static final String REALM = "RPCRDMA.TEST";

    private final Path dir;
    private final int port;
    private final Map<String, String> env;
    private final java.util.Set<String> principals = new java.util.HashSet<>();
    private Process kdc;
    private static Krb5Realm shared;

    private Krb5Realm(Path dir, int port) {
        this.dir = dir;
        this.port = port;
        this.env = Map.of("KRB5_CONFIG", dir.resolve("krb5.conf").toString(),
                "KRB5_KDC_PROFILE", dir.resolve("kdc.conf").toString());
    }

    private static Path tool(String name) {
        for (String d : new String[] {"/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/sbin"}) {
            Path p = Paths.get(d, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        String message = "SKIPPED Kerberos (RPCSEC_GSS) test: " + name + " is not installed (install the Debian "
                + "packages krb5-kdc krb5-admin-server krb5-user: apt-get install -y krb5-kdc krb5-admin-server "
                + "krb5-user, or run tools/setup)";
        System.err.println("**** " + message);
        Assumptions.abort(message);
        return null;
    }

    /** Creates the realm and starts its KDC. */
    public static Krb5Realm start() throws IOException, InterruptedException {
        Path kdcBinary = tool("krb5kdc");
        tool("kdb5_util");
        tool("kadmin.local");
        Path dir = Files.createTempDirectory("rpcrdma-krb5-");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Krb5Realm realm = new Krb5Realm(dir, port);
        try {
            realm.configure();
            realm.run(List.of(tool("kdb5_util").toString(), "-r", REALM, "-P", "master-password-not-secret",
                    "create", "-s"));
            ProcessBuilder pb = new ProcessBuilder(kdcBinary.toString(), "-n", "-r", REALM, "-P",
                    dir.resolve("kdc.pid").toString());
            pb.environment().putAll(realm.env);
            pb.redirectErrorStream(true).redirectOutput(dir.resolve("krb5kdc.out").toFile());
            realm.kdc = pb.start();
            Process started = realm.kdc;
            // Should the JVM end without close() (a test run interrupted), the KDC ends with it.
            Runtime.getRuntime().addShutdownHook(new Thread(started::destroy, "krb5kdc-stop"));
            realm.awaitListening();
        } catch (IOException | InterruptedException | RuntimeException e) {
            realm.close();
            throw e;
        }
        System.setProperty("java.security.krb5.conf", dir.resolve("krb5.conf").toString());
        return realm;
    }

    /**
     * The realm of this JVM, started by the first caller and ended with the JVM: test classes that need the
     * same KDC (the VM stage's, whose start-up costs seconds under emulation) share it. Points the JDK at it again,
     * in case a class started a realm of its own meanwhile.
     */
    public static synchronized Krb5Realm shared() throws IOException, InterruptedException {
        if (shared == null) {
            Krb5Realm realm = start();
            Runtime.getRuntime().addShutdownHook(new Thread(realm::close, "krb5-realm-close"));
            shared = realm;
        }
        System.setProperty("java.security.krb5.conf", shared.dir.resolve("krb5.conf").toString());
        return shared;
    }

    /** This realm's {@code krb5.conf} (what {@code KRB5_CONFIG} names for MIT tools). */
    public Path krb5Conf() {
        return dir.resolve("krb5.conf");
    }

    /** The environment MIT Kerberos programs need to use this realm ({@code KRB5_CONFIG}, the KDC's profile). */
    public Map<String, String> environment() {
        return env;
    }

    /** The directory of the realm's files (database, logs, keytabs), deleted by {@link #close()}. */
    public Path directory() {
        return dir;
    }

    private void configure() throws IOException {
        Files.writeString(dir.resolve("krb5.conf"), String.join("\n",
                "[libdefaults]",
                " default_realm = " + REALM,
                " dns_lookup_kdc = false",
                " dns_lookup_realm = false",
                " rdns = false",
                " dns_canonicalize_hostname = false",
                " udp_preference_limit = 1",
                " ticket_lifetime = 1h",
                " permitted_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96",
                " default_tkt_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96",
                " default_tgs_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96",
                "[realms]",
                " " + REALM + " = {",
                "  kdc = 127.0.0.1:" + port,
                " }",
                ""), StandardCharsets.US_ASCII);
        Files.writeString(dir.resolve("kdc.conf"), String.join("\n",
                "[kdcdefaults]",
                " kdc_ports = " + port,
                " kdc_tcp_ports = " + port,
                "[realms]",
                " " + REALM + " = {",
                "  database_name = " + dir.resolve("principal"),
                "  key_stash_file = " + dir.resolve("stash"),
                "  acl_file = " + dir.resolve("kadm5.acl"),
                "  max_life = 1h",
                "  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal",
                " }",
                "[logging]",
                " kdc = FILE:" + dir.resolve("kdc.log"),
                ""), StandardCharsets.US_ASCII);
        Files.writeString(dir.resolve("kadm5.acl"), "", StandardCharsets.US_ASCII);
    }

    private void run(List<String> command) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(env);
        Path log = dir.resolve("commands.log");
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(command + " did not finish");
        }
        if (p.exitValue() != 0) {
            throw new IOException(command + " failed (" + p.exitValue() + "): " + Files.readString(log));
        }
    }

    /** Waits (bounded) until the KDC accepts TCP connections; fails with its output if it exits. */
    private void awaitListening() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            if (!kdc.isAlive()) {
                throw new IOException("krb5kdc exited (" + kdc.exitValue() + "): "
                        + Files.readString(dir.resolve("krb5kdc.out")));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return;
            } catch (IOException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("krb5kdc does not listen on " + port, e);
                }
                Thread.sleep(20);
            }
        }
    }

    /** Adds {@code principal} with a random key and writes its keytab (once: again, the same keytab). */
    public synchronized Path addPrincipal(String principal) throws IOException, InterruptedException {
        Path keytab = dir.resolve(principal.replace('/', '_') + ".keytab");
        if (!principals.add(principal)) {
            return keytab;
        }
        run(List.of(tool("kadmin.local").toString(), "-r", REALM, "-q", "addprinc -randkey " + principal));
        run(List.of(tool("kadmin.local").toString(), "-r", REALM, "-q",
                "ktadd -k " + keytab + " " + principal));
        return keytab;
    }

    /** The full name of {@code principal} in this realm. */
    public static String name(String principal) {
        return principal + '@' + REALM;
    }

    @Override
    public void close() {
        if (kdc != null) {
            kdc.destroy();
            try {
                if (!kdc.waitFor(10, TimeUnit.SECONDS)) {
                    kdc.destroyForcibly();
                }
            } catch (InterruptedException e) {
                kdc.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        try (var files = Files.walk(dir)) {
            List<Path> all = new ArrayList<>();
            files.forEach(all::add);
            for (int i = all.size() - 1; i >= 0; i--) {
                Files.deleteIfExists(all.get(i));
            }
        } catch (IOException e) {
            // A temp dir left behind is harmless.
        }
    }
}
