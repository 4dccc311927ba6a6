package dev.rpcrdma.handlers.interop.nfs41;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Reads what the Linux NFS server shows of one NFSv4 client in {@code /proc/fs/nfsd/clients/<id>/} (its
 * {@code info}: name, minor version, "callback state: UP"; its {@code states}: opens and delegations), found by its
 * client owner string. Only in the VM, where the test runs as root next to nfsd. Stateless.
 */
public final class KnfsdClients {
    private static final Path CLIENTS = Path.of("/proc/fs/nfsd/clients");

    private KnfsdClients() {
    }

    /** The directory of the client named {@code owner}, or null if nfsd shows none. */
    public static Path find(String owner) throws IOException {
        String name = "name: \"" + owner + "\"";
        try (Stream<Path> dirs = Files.list(CLIENTS)) {
            for (Path dir : (Iterable<Path>) dirs::iterator) {
                try {
                    if (Files.readString(dir.resolve("info")).contains(name)) {
                        return dir;
                    }
                } catch (IOException gone) {
                    // a client destroyed while we looked
                }
            }
        }
        return null;
    }

    /** The {@code info} file of the client named {@code owner} ("" if nfsd shows none). */
    public static String info(String owner) throws IOException {
        Path dir = find(owner);
        return dir == null ? "" : Files.readString(dir.resolve("info"));
    }

    /** The {@code states} file of the client named {@code owner} ("" if nfsd shows none). */
    public static String states(String owner) throws IOException {
        Path dir = find(owner);
        return dir == null ? "" : Files.readString(dir.resolve("states"));
    }
}
