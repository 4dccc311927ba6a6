package dev.rpcrdma.oncrpc.server;

/**
 * What protects a call's arguments and its reply's results beyond the header: nothing (AUTH_NONE, AUTH_SYS,
 * RPCSEC_GSS with service none: krb5), a checksum (RPCSEC_GSS integrity: krb5i) or encryption (RPCSEC_GSS privacy:
 * krb5p). RFC 2203 §5.3.2.
 */
public enum RpcProtection {
    /** Arguments and results travel as they are. */
    NONE,
    /** Arguments and results travel with a checksum ({@code rpc_gss_integ_data}). */
    INTEGRITY,
    /** Arguments and results travel encrypted ({@code rpc_gss_priv_data}). */
    PRIVACY
}
