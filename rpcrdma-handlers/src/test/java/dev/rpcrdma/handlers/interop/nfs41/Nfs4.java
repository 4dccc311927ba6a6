package dev.rpcrdma.handlers.interop.nfs41;

/**
 * The NFSv4.1 numbers this minimal test client uses (RFC 5661: the program in §16, operation numbers in §16.2.3
 * and §20, status codes in §15.1, flags with their operations in §18). Constants only.
 */
public final class Nfs4 {
    public static final int PROGRAM = 100003;
    public static final int VERSION = 4;
    public static final int PROC_COMPOUND = 1;
    public static final int MINOR_VERSION = 1;

    /** The callback program number our CREATE_SESSION names (the Linux client's, RFC 5661 §18.36.3). */
    public static final int CB_PROGRAM = 0x40000000;
    public static final int CB_VERSION = 1;
    public static final int CB_PROC_COMPOUND = 1;

    // Forward operations (§16.2.3).
    public static final int OP_CLOSE = 4;
    public static final int OP_DELEGRETURN = 8;
    public static final int OP_GETFH = 10;
    public static final int OP_OPEN = 18;
    public static final int OP_PUTFH = 22;
    public static final int OP_PUTROOTFH = 24;
    public static final int OP_EXCHANGE_ID = 42;
    public static final int OP_CREATE_SESSION = 43;
    public static final int OP_DESTROY_SESSION = 44;
    public static final int OP_SEQUENCE = 53;
    public static final int OP_DESTROY_CLIENTID = 57;
    public static final int OP_RECLAIM_COMPLETE = 58;

    // Callback operations (§20).
    public static final int OP_CB_RECALL = 4;
    public static final int OP_CB_SEQUENCE = 11;
    public static final int OP_CB_ILLEGAL = 10044;

    // Status codes (§15.1).
    public static final int NFS4_OK = 0;
    public static final int NFS4ERR_NOTSUPP = 10004;
    public static final int NFS4ERR_DELAY = 10008;
    public static final int NFS4ERR_GRACE = 10013;
    public static final int NFS4ERR_OP_ILLEGAL = 10044;
    public static final int NFS4ERR_BADSESSION = 10052;
    public static final int NFS4ERR_BADSLOT = 10053;
    public static final int NFS4ERR_SEQ_MISORDERED = 10063;
    public static final int NFS4ERR_TOOSMALL = 10005;
    public static final int NFS4ERR_RETRY_UNCACHED_REP = 10068;

    // EXCHANGE_ID (§18.35), CREATE_SESSION (§18.36), SEQUENCE (§18.46).
    public static final int SP4_NONE = 0;
    public static final int CREATE_SESSION4_FLAG_CONN_BACK_CHAN = 0x2;
    public static final int SEQ4_STATUS_CB_PATH_DOWN = 0x1;
    public static final int SEQ4_STATUS_CB_PATH_DOWN_SESSION = 0x200;
    public static final int SEQ4_STATUS_RECALLABLE_STATE_REVOKED = 0x40;
    public static final int AUTH_NONE = 0;

    // OPEN (§18.16).
    public static final int OPEN4_SHARE_ACCESS_READ = 0x1;
    public static final int OPEN4_SHARE_ACCESS_WANT_READ_DELEG = 0x100;
    public static final int OPEN4_SHARE_DENY_NONE = 0;
    public static final int OPEN4_NOCREATE = 0;
    public static final int CLAIM_NULL = 0;
    public static final int OPEN_DELEGATE_NONE = 0;
    public static final int OPEN_DELEGATE_READ = 1;
    public static final int OPEN_DELEGATE_WRITE = 2;
    public static final int OPEN_DELEGATE_NONE_EXT = 3;
    public static final int WND4_CONTENTION = 1;
    public static final int WND4_RESOURCE = 2;

    /** Bounds for decoding (NFS4_OPAQUE_LIMIT, NFS4_FHSIZE, NFS4_SESSIONID_SIZE). */
    public static final int OPAQUE_LIMIT = 1024;
    public static final int FHSIZE = 128;
    public static final int SESSIONID_SIZE = 16;
    public static final int MAX_OPS = 16;
    public static final int MAX_BITMAP_WORDS = 8;

    private Nfs4() {
    }
}
