package dev.rpcrdma.oncrpc.gss;

import io.netty.util.internal.ObjectUtil;
import org.ietf.jgss.GSSCredential;
import org.ietf.jgss.GSSException;
import org.ietf.jgss.GSSManager;
import org.ietf.jgss.GSSName;
import org.ietf.jgss.Oid;

import javax.security.auth.Subject;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import javax.security.auth.login.LoginContext;
import javax.security.auth.login.LoginException;
import java.nio.file.Path;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import java.util.HashMap;
import java.util.Map;

/**
 * Kerberos V5 credentials from a keytab through the JDK's {@code Krb5LoginModule} (no JAAS file needed): the
 * acceptor credential of a service ({@code nfs/host@REALM}) and the initiator credential of a client principal,
 * and the names of targets. The JDK finds the KDC through {@code krb5.conf} (the {@code java.security.krb5.conf}
 * system property or the system file). Logging in as an initiator talks to the KDC: never on an event loop.
 */
public final class Krb5Credentials {

    /** The Kerberos V5 GSS-API mechanism (RFC 1964). */
    public static final Oid KRB5_MECHANISM = oid("1.2.840.113554.1.2.2");
    /** The Kerberos principal name type ({@code nfs/host@REALM}). */
    public static final Oid KRB5_PRINCIPAL_NAME = oid("1.2.840.113554.1.2.2.1");

    private Krb5Credentials() {
    }

    private static Oid oid(String s) {
        try {
            return new Oid(s);
        } catch (GSSException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The acceptor credential of {@code principal} (e.g. {@code nfs/server.example.org@EXAMPLE.ORG}). */
    public static GSSCredential acceptor(String principal, Path keytab) throws LoginException, GSSException {
        return credential(principal, keytab, false);
    }

    /** The initiator credential of {@code principal} (e.g. {@code alice@EXAMPLE.ORG}); asks the KDC for a TGT. */
    public static GSSCredential initiator(String principal, Path keytab) throws LoginException, GSSException {
        return credential(principal, keytab, true);
    }

    /** A Kerberos principal name as a target ({@code nfs/server.example.org@EXAMPLE.ORG}). */
    public static GSSName principalName(String principal) throws GSSException {
        return GSSManager.getInstance().createName(principal, KRB5_PRINCIPAL_NAME);
    }

    /** A host-based service name as a target ({@code nfs@server.example.org}, RFC 2743 §4.1). */
    public static GSSName hostBasedService(String service, String host) throws GSSException {
        return GSSManager.getInstance().createName(service + '@' + host, GSSName.NT_HOSTBASED_SERVICE);
    }

    private static GSSCredential credential(String principal, Path keytab, boolean initiator)
            throws LoginException, GSSException {
        ObjectUtil.checkNotNull(principal, "principal");
        ObjectUtil.checkNotNull(keytab, "keytab");
        Map<String, String> options = new HashMap<>();
        options.put("useKeyTab", "true");
        options.put("keyTab", keytab.toAbsolutePath().toString());
        options.put("principal", principal);
        options.put("storeKey", "true");
        options.put("doNotPrompt", "true");
        options.put("refreshKrb5Config", "true");
        options.put("isInitiator", Boolean.toString(initiator));
        Configuration config = new Configuration() {
            @Override
            public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
                return new AppConfigurationEntry[] {new AppConfigurationEntry(
                        "com.sun.security.auth.module.Krb5LoginModule",
                        AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, options)};
            }
        };
        Subject subject = new Subject();
        new LoginContext("rpcrdma-gss", subject, null, config).login();
        PrivilegedExceptionAction<GSSCredential> create = () -> {
            GSSManager manager = GSSManager.getInstance();
            GSSName name = initiator ? manager.createName(principal, KRB5_PRINCIPAL_NAME) : null;
            return manager.createCredential(name, GSSCredential.DEFAULT_LIFETIME, KRB5_MECHANISM,
                    initiator ? GSSCredential.INITIATE_ONLY : GSSCredential.ACCEPT_ONLY);
        };
        try {
            return doAs(subject, create);
        } catch (PrivilegedActionException e) {
            if (e.getCause() instanceof GSSException) {
                throw (GSSException) e.getCause();
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    @SuppressWarnings("removal")
    private static <T> T doAs(Subject subject, PrivilegedExceptionAction<T> action)
            throws PrivilegedActionException {
        return Subject.doAs(subject, action);
    }
}
