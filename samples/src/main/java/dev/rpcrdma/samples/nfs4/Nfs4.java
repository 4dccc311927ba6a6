package dev.rpcrdma.samples.nfs4;

/**
 * NFSv4.1 protocol numbers (RFC 5661 §16 program, §18 operations, §13 status codes, §5 attribute numbers, §20
 * callback operations): constants only, no state. Immutable, shared by every thread.
 */
final class Nfs4 {
    private Nfs4() {
    }

    static final int PROGRAM = 100003;
    static final int VERSION = 4;
    static final int PROC_COMPOUND = 1;
    static final int MINOR_VERSION = 1;
    /** Callback procedure CB_COMPOUND (RFC 5661 §20). */
    static final int CB_PROC_COMPOUND = 1;
    static final int CB_VERSION = 1;

    // Operations, RFC 5661 §18 (nfs_opnum4).
    static final int OP_ACCESS = 3;
    static final int OP_CLOSE = 4;
    static final int OP_COMMIT = 5;
    static final int OP_CREATE = 6;
    static final int OP_DELEGRETURN = 8;
    static final int OP_GETATTR = 9;
    static final int OP_GETFH = 10;
    static final int OP_LOOKUP = 15;
    static final int OP_LOOKUPP = 16;
    static final int OP_OPEN = 18;
    static final int OP_OPEN_DOWNGRADE = 21;
    static final int OP_PUTFH = 22;
    static final int OP_PUTROOTFH = 24;
    static final int OP_READ = 25;
    static final int OP_READDIR = 26;
    static final int OP_REMOVE = 28;
    static final int OP_RENAME = 29;
    static final int OP_RESTOREFH = 31;
    static final int OP_SECINFO = 33;
    static final int OP_SAVEFH = 32;
    static final int OP_SETATTR = 34;
    static final int OP_WRITE = 38;
    static final int OP_BACKCHANNEL_CTL = 40;
    static final int OP_BIND_CONN_TO_SESSION = 41;
    static final int OP_EXCHANGE_ID = 42;
    static final int OP_CREATE_SESSION = 43;
    static final int OP_DESTROY_SESSION = 44;
    static final int OP_FREE_STATEID = 45;
    static final int OP_SECINFO_NO_NAME = 52;
    static final int OP_SEQUENCE = 53;
    static final int OP_TEST_STATEID = 55;
    static final int OP_DESTROY_CLIENTID = 57;
    static final int OP_RECLAIM_COMPLETE = 58;
    static final int OP_ILLEGAL = 10044;
    /** Lowest and highest operation numbers NFSv4.1 defines (RFC 5661 §16.2.1); others are OP_ILLEGAL. */
    static final int OP_FIRST = 3;
    static final int OP_LAST = 58;

    // Callback operations, RFC 5661 §20.
    static final int CB_RECALL = 4;
    static final int CB_SEQUENCE = 11;

    // Status codes, RFC 5661 §15.1.
    static final int NFS4_OK = 0;
    static final int NFS4ERR_PERM = 1;
    static final int NFS4ERR_NOENT = 2;
    static final int NFS4ERR_IO = 5;
    static final int NFS4ERR_ACCESS = 13;
    static final int NFS4ERR_EXIST = 17;
    static final int NFS4ERR_XDEV = 18;
    static final int NFS4ERR_NOTDIR = 20;
    static final int NFS4ERR_ISDIR = 21;
    static final int NFS4ERR_INVAL = 22;
    static final int NFS4ERR_FBIG = 27;
    static final int NFS4ERR_NOSPC = 28;
    static final int NFS4ERR_NAMETOOLONG = 63;
    static final int NFS4ERR_NOTEMPTY = 66;
    static final int NFS4ERR_STALE = 70;
    static final int NFS4ERR_BADHANDLE = 10001;
    static final int NFS4ERR_BAD_COOKIE = 10003;
    static final int NFS4ERR_NOTSUPP = 10004;
    static final int NFS4ERR_TOOSMALL = 10005;
    static final int NFS4ERR_SERVERFAULT = 10006;
    static final int NFS4ERR_BADTYPE = 10007;
    static final int NFS4ERR_DELAY = 10008;
    static final int NFS4ERR_EXPIRED = 10011;
    static final int NFS4ERR_SHARE_DENIED = 10015;
    static final int NFS4ERR_WRONGSEC = 10016;
    static final int NFS4ERR_CLID_INUSE = 10017;
    static final int NFS4ERR_NOFILEHANDLE = 10020;
    static final int NFS4ERR_MINOR_VERS_MISMATCH = 10021;
    static final int NFS4ERR_STALE_CLIENTID = 10022;
    static final int NFS4ERR_OLD_STATEID = 10024;
    static final int NFS4ERR_NOT_SAME = 10027;
    static final int NFS4ERR_BAD_STATEID = 10025;
    static final int NFS4ERR_RESTOREFH = 10030;
    static final int NFS4ERR_ATTRNOTSUPP = 10032;
    static final int NFS4ERR_BADXDR = 10036;
    static final int NFS4ERR_LOCKS_HELD = 10037;
    static final int NFS4ERR_OPENMODE = 10038;
    static final int NFS4ERR_BADNAME = 10041;
    static final int NFS4ERR_GRACE = 10013;
    static final int NFS4ERR_NO_GRACE = 10033;
    static final int NFS4ERR_OP_ILLEGAL = 10044;
    static final int NFS4ERR_BADSESSION = 10052;
    static final int NFS4ERR_BADSLOT = 10053;
    static final int NFS4ERR_COMPLETE_ALREADY = 10054;
    static final int NFS4ERR_CONN_NOT_BOUND_TO_SESSION = 10055;
    static final int NFS4ERR_SEQ_MISORDERED = 10063;
    static final int NFS4ERR_SEQUENCE_POS = 10064;
    static final int NFS4ERR_REQ_TOO_BIG = 10065;
    static final int NFS4ERR_REP_TOO_BIG = 10066;
    static final int NFS4ERR_REP_TOO_BIG_TO_CACHE = 10067;
    static final int NFS4ERR_RETRY_UNCACHED_REP = 10068;
    static final int NFS4ERR_TOO_MANY_OPS = 10070;
    static final int NFS4ERR_OP_NOT_IN_SESSION = 10071;
    static final int NFS4ERR_CLIENTID_BUSY = 10074;
    static final int NFS4ERR_NOT_ONLY_OP = 10081;
    static final int NFS4ERR_WRONG_TYPE = 10083;
    static final int NFS4ERR_DELEG_REVOKED = 10087;

    // File types (nfs_ftype4), RFC 5661 §3.3.
    static final int NF4REG = 1;
    static final int NF4DIR = 2;
    static final int NF4LNK = 5;

    // EXCHANGE_ID flags, RFC 5661 §18.35.
    static final int EXCHGID4_FLAG_USE_NON_PNFS = 0x00010000;
    static final int EXCHGID4_FLAG_CONFIRMED_R = 0x80000000;
    static final int EXCHGID4_FLAG_UPD_CONFIRMED_REC_A = 0x40000000;
    /**
     * The eia_flags bits a client may set (RFC 5661 §18.35.3: SUPP_MOVED_REFER, SUPP_MOVED_MIGR,
     * BIND_PRINC_STATEID, the three pNFS roles, UPD_CONFIRMED_REC_A); any other is NFS4ERR_INVAL, CONFIRMED_R
     * included ("always off in eia_flags"). The Linux client's EXCHGID4_FLAG_MASK_A.
     */
    static final int EXCHGID4_FLAG_MASK_A = 0x40070103;
    static final int SP4_NONE = 0;

    // CREATE_SESSION flags, RFC 5661 §18.36.
    static final int CREATE_SESSION4_FLAG_PERSIST = 0x1;
    static final int CREATE_SESSION4_FLAG_CONN_BACK_CHAN = 0x2;
    static final int CREATE_SESSION4_FLAG_CONN_RDMA = 0x4;
    /** Every csa_flags bit RFC 5661 §18.36.1 defines; any other is NFS4ERR_INVAL. */
    static final int CREATE_SESSION4_FLAG_MASK = 0x7;

    // BIND_CONN_TO_SESSION directions, RFC 5661 §18.34.
    static final int CDFC4_FORE = 0x1;
    static final int CDFC4_BACK = 0x2;
    static final int CDFC4_FORE_OR_BOTH = 0x3;
    static final int CDFC4_BACK_OR_BOTH = 0x7;
    static final int CDFS4_FORE = 0x1;
    static final int CDFS4_BACK = 0x2;
    static final int CDFS4_BOTH = 0x3;

    // SEQUENCE status flags, RFC 5661 §18.46.3.
    static final int SEQ4_STATUS_CB_PATH_DOWN = 0x1;
    static final int SEQ4_STATUS_RECALLABLE_STATE_REVOKED = 0x40;

    // OPEN, RFC 5661 §18.16.
    static final int OPEN4_SHARE_ACCESS_READ = 1;
    static final int OPEN4_SHARE_ACCESS_WRITE = 2;
    static final int OPEN4_SHARE_ACCESS_BOTH = 3;
    static final int OPEN4_SHARE_ACCESS_WANT_DELEG_MASK = 0xFF00;
    static final int OPEN4_SHARE_ACCESS_WANT_NO_PREFERENCE = 0x0000;
    static final int OPEN4_SHARE_ACCESS_WANT_READ_DELEG = 0x0100;
    static final int OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG = 0x0200;
    static final int OPEN4_SHARE_ACCESS_WANT_ANY_DELEG = 0x0300;
    static final int OPEN4_SHARE_ACCESS_WANT_NO_DELEG = 0x0400;
    static final int OPEN4_SHARE_ACCESS_WANT_CANCEL = 0x0500;
    /** WANT_SIGNAL_DELEG_WHEN_RESRC_AVAIL and WANT_PUSH_DELEG_WHEN_UNCONTENDED. */
    static final int OPEN4_SHARE_ACCESS_WANT_SIGNAL_PUSH = 0x30000;
    static final int OPEN4_NOCREATE = 0;
    static final int OPEN4_CREATE = 1;
    static final int UNCHECKED4 = 0;
    static final int GUARDED4 = 1;
    static final int EXCLUSIVE4 = 2;
    static final int EXCLUSIVE4_1 = 3;
    static final int CLAIM_NULL = 0;
    static final int CLAIM_FH = 4;
    static final int OPEN4_RESULT_LOCKTYPE_POSIX = 0x4;
    static final int OPEN_DELEGATE_NONE = 0;
    static final int OPEN_DELEGATE_READ = 1;
    static final int OPEN_DELEGATE_NONE_EXT = 3;
    // why_no_delegation4, RFC 5661 §18.16.2.
    static final int WND4_NOT_WANTED = 0;
    static final int WND4_CONTENTION = 1;
    static final int WND4_RESOURCE = 2;
    static final int WND4_WRITE_DELEG_NOT_SUPP_FTYPE = 4;
    static final int WND4_CANCELLED = 7;
    static final int CLAIM_PREVIOUS = 1;

    // WRITE stability, RFC 5661 §18.32.
    static final int UNSTABLE4 = 0;
    static final int FILE_SYNC4 = 2;

    // ACCESS bits, RFC 5661 §18.1.
    static final int ACCESS4_READ = 0x01;
    static final int ACCESS4_LOOKUP = 0x02;
    static final int ACCESS4_MODIFY = 0x04;
    static final int ACCESS4_EXTEND = 0x08;
    static final int ACCESS4_DELETE = 0x10;
    static final int ACCESS4_EXECUTE = 0x20;

    /** Largest opaque the protocol allows for owners and similar (NFS4_OPAQUE_LIMIT). */
    static final int OPAQUE_LIMIT = 1024;
    /** Largest file handle (NFS4_FHSIZE). */
    static final int FHSIZE = 128;
    /** Largest name component this server accepts. */
    static final int MAX_NAME = 255;
    /** Largest READ/WRITE. */
    static final int MAX_IO = 1 << 20;
    /** Session id length (NFS4_SESSIONID_SIZE). */
    static final int SESSIONID_SIZE = 16;
    /** Verifier length (NFS4_VERIFIER_SIZE). */
    static final int VERIFIER_SIZE = 8;
}
