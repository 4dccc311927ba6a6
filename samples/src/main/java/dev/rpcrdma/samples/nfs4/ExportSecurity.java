package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.server.RpcCallContext;
import dev.rpcrdma.oncrpc.gss.RpcGssIdentityMapper;
import dev.rpcrdma.oncrpc.gss.RpcGssService;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The export's security flavors ({@code --sec}, in the server's order of preference): which calls may use file
 * handles (RFC 5661 §2.6.3.1: the others get NFS4ERR_WRONGSEC), what SECINFO and SECINFO_NO_NAME answer (§18.29,
 * §18.45) and the uid/gid a Kerberos principal acts as. Immutable, shared by every thread.
 */
final class ExportSecurity {

    /** An NFS security flavor of an export (RFC 5661 §2.6.2.1; RFC 2623 §2.2 pseudo-flavors). */
    enum Flavor {
        /** AUTH_SYS (AUTH_NONE is accepted with it, as nobody). */
        SYS(null),
        /** RPCSEC_GSS, Kerberos V5, service none. */
        KRB5(RpcGssService.NONE),
        /** RPCSEC_GSS, Kerberos V5, integrity. */
        KRB5I(RpcGssService.INTEGRITY),
        /** RPCSEC_GSS, Kerberos V5, privacy. */
        KRB5P(RpcGssService.PRIVACY);

        final RpcGssService service;

        Flavor(RpcGssService service) {
            this.service = service;
        }

        /** The name on the command line and in mount's {@code sec=}. */
        String optionName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The Kerberos V5 mechanism OID 1.2.840.113554.1.2.2 as sec_oid4 carries it (the DER body, no tag). */
    static final byte[] KRB5_OID = {0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x12, 0x01, 0x02, 0x02};
    /** The "nobody" uid and gid. */
    static final int NOBODY = 65534;

    /** The default: AUTH_SYS only. */
    static final ExportSecurity SYS = new ExportSecurity(List.of(Flavor.SYS));

    private final List<Flavor> flavors;

    ExportSecurity(List<Flavor> flavors) {
        this.flavors = List.copyOf(flavors);
    }

    /**
     * Parses {@code --sec}'s comma list ({@code sys}, {@code krb5}, {@code krb5i}, {@code krb5p}); a one-line
     * {@link IllegalArgumentException} for an unknown, repeated or missing flavor.
     */
    static ExportSecurity parse(String list) {
        List<Flavor> flavors = new ArrayList<>(4);
        for (String s : list.split(",", -1)) {
            Flavor f;
            try {
                f = Flavor.valueOf(s.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--sec: a comma list of sys, krb5, krb5i, krb5p, not '" + s.trim()
                        + "'");
            }
            if (flavors.contains(f)) {
                throw new IllegalArgumentException("--sec: " + f.optionName() + " named twice");
            }
            flavors.add(f);
        }
        return new ExportSecurity(flavors);
    }

    List<Flavor> flavors() {
        return flavors;
    }

    /** Whether a Kerberos flavor is among them (the server then needs its keytab). */
    boolean needsKerberos() {
        return flavors.stream().anyMatch(f -> f.service != null);
    }

    /** The flavor a call came with, or null for one no export can have (another GSS mechanism, AUTH_DH...). */
    static Flavor flavorOf(RpcCallContext call) {
        AuthFlavor f = call.flavor();
        if (f == AuthFlavor.AUTH_SYS || f == AuthFlavor.AUTH_NONE) {
            return Flavor.SYS;
        }
        if (f == AuthFlavor.RPCSEC_GSS) {
            switch (call.protection()) {
                case NONE:
                    return Flavor.KRB5;
                case INTEGRITY:
                    return Flavor.KRB5I;
                case PRIVACY:
                    return Flavor.KRB5P;
                default:
                    return null;
            }
        }
        return null;
    }

    /** Whether the export accepts the call's flavor for its file handles (RFC 5661 §2.6.3.1). */
    boolean allows(RpcCallContext call) {
        Flavor f = flavorOf(call);
        return f != null && flavors.contains(f);
    }

    /** SECINFO4resok / SECINFO_NO_NAME's result (RFC 5661 §18.29.2): {@code secinfo4<>} in this order. */
    void encode(XdrWriter w) {
        w.writeInt(flavors.size());
        for (Flavor f : flavors) {
            if (f.service == null) {
                w.writeInt(AuthFlavor.AUTH_SYS.intValue());
            } else {
                // rpcsec_gss_info: the mechanism OID, the default QOP, the service (RFC 5661 §18.29.2).
                w.writeInt(AuthFlavor.RPCSEC_GSS.intValue()).writeOpaque(KRB5_OID).writeInt(0)
                        .writeInt(f.service.intValue());
            }
        }
    }

    @Override
    public String toString() {
        return String.join(",", flavors.stream().map(Flavor::optionName).toList());
    }

    /** The uid and gid a Kerberos principal acts as in this server. */
    record Identity(int uid, int gid) {
    }

    /**
     * The sample's principal-to-uid mapping, built once from a passwd file (read at start, never on the event loop):
     * {@code name@REALM} of the server's own realm acts as the local user {@code name}; the machine principals of
     * the kernel client ({@code host/...}, {@code nfs/...}, {@code root/...} of that realm) and {@code root@REALM}
     * as root, which a Linux client uses for the root user's and its own state operations; anything else
     * (another realm, no such user) as nobody.
     */
    static RpcGssIdentityMapper mapper(String realm, Path passwd) throws IOException {
        Map<String, Identity> users = new HashMap<>();
        if (Files.isReadable(passwd)) {
            for (String line : Files.readAllLines(passwd, StandardCharsets.UTF_8)) {
                String[] f = line.split(":", -1);
                if (f.length >= 4) {
                    try {
                        users.putIfAbsent(f[0], new Identity(Integer.parseInt(f[2]), Integer.parseInt(f[3])));
                    } catch (NumberFormatException e) {
                        // not a passwd line
                    }
                }
            }
        }
        Identity nobody = new Identity(NOBODY, NOBODY);
        return principal -> {
            int at = principal.lastIndexOf('@');
            if (at < 0 || !principal.substring(at + 1).equals(realm)) {
                return nobody;
            }
            String name = principal.substring(0, at);
            int slash = name.indexOf('/');
            if (slash >= 0) {
                String service = name.substring(0, slash);
                return service.equals("host") || service.equals("nfs") || service.equals("root")
                        ? new Identity(0, 0) : nobody;
            }
            if (name.equals("root")) {
                return new Identity(0, 0);
            }
            return users.getOrDefault(name, nobody);
        };
    }
}
