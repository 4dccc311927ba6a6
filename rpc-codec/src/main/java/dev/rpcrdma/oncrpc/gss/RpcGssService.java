package dev.rpcrdma.oncrpc.gss;

import dev.rpcrdma.oncrpc.server.RpcProtection;

/**
 * RFC 2203 §5 {@code rpc_gss_service_t}: what protects a call's arguments and results. With Kerberos V5 these are
 * the NFS security flavors krb5 ({@link #NONE}), krb5i ({@link #INTEGRITY}) and krb5p ({@link #PRIVACY}).
 */
public enum RpcGssService {
    /** {@code rpc_gss_svc_none = 1}: the header is authenticated, the body travels as it is (krb5). */
    NONE(1, 390003, RpcProtection.NONE),
    /** {@code rpc_gss_svc_integrity = 2}: the body carries a checksum (krb5i). */
    INTEGRITY(2, 390004, RpcProtection.INTEGRITY),
    /** {@code rpc_gss_svc_privacy = 3}: the body is encrypted (krb5p). */
    PRIVACY(3, 390005, RpcProtection.PRIVACY);

    private final int value;
    private final int pseudoFlavor;
    private final RpcProtection protection;

    RpcGssService(int value, int pseudoFlavor, RpcProtection protection) {
        this.value = value;
        this.pseudoFlavor = pseudoFlavor;
        this.protection = protection;
    }

    /**
     * The Kerberos V5 pseudo-flavor of this service (RFC 2623 §2.2: krb5 390003, krb5i 390004, krb5p 390005), as
     * NFS lists security flavors (MOUNT, and the flavor numbers behind NFSv4 SECINFO's {@code rpcsec_gss_info}).
     */
    public int pseudoFlavor() {
        return pseudoFlavor;
    }

    /** The wire value. */
    public int intValue() {
        return value;
    }

    /** The protection it gives. */
    public RpcProtection protection() {
        return protection;
    }

    /** The service of wire value {@code value}, or null for a value RFC 2203 does not define. */
    public static RpcGssService valueOf(int value) {
        switch (value) {
            case 1:
                return NONE;
            case 2:
                return INTEGRITY;
            case 3:
                return PRIVACY;
            default:
                return null;
        }
    }
}
